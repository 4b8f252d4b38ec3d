import { Badge, Card, Group, Pagination, Progress, Select, Table, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { api, type Campaign, type FixedSummary, type Run, type ScenarioSummary } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { ms, num, pct, when } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { navigate, type CampaignQuery } from "../../routing";
import { VerdictBadge } from "./labels";

export const RUNS_PAGE = 50;

/** Runs seen on the pages shown, so that a run opens without listing them all. */
export const knownRuns = new Map<string, Run>();
const VERDICTS = ["passed", "failed", "error", "pending"] as const;

/** The campaign's fixed-scenario runs: progress, filters, one page from the server. */
export function RunsCard({
  campaign: c,
  fixed,
  scenarios,
  query,
  live,
}: {
  campaign: Campaign;
  fixed: FixedSummary;
  scenarios: ScenarioSummary[];
  query: CampaignQuery;
  live: boolean;
}) {
  const { t } = useTranslation();
  const page = query.page ?? 1;
  const runs = useLoad(
    async () => {
      const found = await api.searchRuns(c.id, {
        verdict: query.verdict ?? null,
        scenario_id: query.scenario ?? null,
        tag: query.tag ?? null,
        offset: (page - 1) * RUNS_PAGE,
        limit: RUNS_PAGE,
      });
      for (const r of found.runs) knownRuns.set(r.id, r);
      return found;
    },
    [c.id, query.verdict, query.scenario, query.tag, page],
    live && ((e) => e.campaign_id === c.id && e.kind !== "session_changed"),
  );
  const byId = new Map(scenarios.map((s) => [s.id, s]));
  const planned = [...new Set(c.plan.entries.map((e) => e.scenario_id))];
  const tags = [...new Set(planned.flatMap((id) => byId.get(id)?.tags ?? []))].sort();
  const title = (id: string) => byId.get(id)?.title ?? id;
  const setQuery = (q: Partial<CampaignQuery>) =>
    navigate({ kind: "campaign", id: c.id, query: { ...query, page: undefined, ...q } }, { replace: true });
  const total = runs.data?.total ?? 0;
  const filtered = Boolean(query.verdict || query.scenario || query.tag);
  // How the runs ended, not only how many: all of them ended in error is no "done".
  const progress = t(fixed.errors > 0 ? "view.runsProgressErrored" : "view.runsProgress", {
    done: num(fixed.runs_finished),
    planned: num(fixed.runs_planned),
    errors: num(fixed.errors),
  });

  return (
    <Card withBorder data-testid="runs-card">
      <Title order={4}>{t("view.runs")}</Title>
      <Progress
        mt="sm"
        size="lg"
        value={fixed.runs_planned ? (100 * fixed.runs_finished) / fixed.runs_planned : 0}
        animated={c.status === "running" && fixed.runs_finished < fixed.runs_planned}
        aria-label={progress}
        data-testid="runs-progress"
      />
      <Text size="sm" mt={4} data-testid="runs-progress-text">
        {progress}
      </Text>
      <Group mt="sm" gap="xs">
        <Badge color="teal">{t("ev.passedN", { n: num(fixed.passed) })}</Badge>
        <Badge color="red">{t("ev.failedN", { n: num(fixed.failed) })}</Badge>
        <Badge color="gray">{t("ev.errorsN", { n: num(fixed.errors) })}</Badge>
        <Badge variant="outline">{t("ev.passRateIs", { rate: pct(fixed.pass_rate) })}</Badge>
      </Group>
      {fixed.runs_planned === 0 ? (
        <Text size="sm" c="dimmed" mt="sm">
          {t("run.noRuns")}
        </Text>
      ) : (
        <>
          <Group mt="sm" gap="xs" align="flex-end" data-testid="runs-filters">
            <Select
              label={t("run.verdict")}
              placeholder={t("ev.any")}
              clearable
              w={160}
              value={query.verdict ?? null}
              onChange={(v) => setQuery({ verdict: v ?? undefined })}
              data={VERDICTS.map((v) => ({ value: v, label: t(`run.${v}`) }))}
              data-testid="runs-filter-verdict"
            />
            <Select
              label={t("run.scenario")}
              placeholder={t("ev.any")}
              clearable
              searchable
              w={280}
              value={query.scenario ?? null}
              onChange={(v) => setQuery({ scenario: v ?? undefined })}
              data={planned.map((id) => ({ value: id, label: title(id) }))}
              data-testid="runs-filter-scenario"
            />
            <Select
              label={t("form.filterTag")}
              placeholder={t("ev.any")}
              clearable
              searchable
              w={180}
              value={query.tag ?? null}
              onChange={(v) => setQuery({ tag: v ?? undefined })}
              data={tags}
              data-testid="runs-filter-tag"
            />
            <Text size="sm" c="dimmed" data-testid="runs-total">
              {filtered ? t("ev.runsMatching", { count: total, n: num(total) }) : t("ev.runsTotal", { count: total, n: num(total) })}
            </Text>
          </Group>
          <ErrorAlert error={runs.error} />
          <Table highlightOnHover mt="sm" data-testid="runs-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("run.scenario")}</Table.Th>
                <Table.Th>{t("run.verdict")}</Table.Th>
                <Table.Th>{t("ev.failedChecks")}</Table.Th>
                <Table.Th>{t("run.latency")}</Table.Th>
                <Table.Th>{t("run.scheduled")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(runs.data?.runs ?? []).map((r) => {
                const failed = r.check_results.filter((x) => !x.passed);
                const first = failed[0];
                const open = () =>
                  navigate({ kind: "run", id: c.id, rid: r.id, turn: first ? first.turn + 1 : null });
                return (
                  <Table.Tr key={r.id} style={{ cursor: "pointer" }} onClick={open} data-testid="run-row">
                    <Table.Td>
                      <Text size="sm">{title(r.scenario_id)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <VerdictBadge verdict={r.verdict} status={r.status} />
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs">{failed.length > 0 ? num(failed.length) : ""}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs">{r.metrics ? ms(r.metrics.latency_ms_max) : ""}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" c="dimmed">
                        {when(r.scheduled_at)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
          {runs.data && runs.data.runs.length === 0 && (
            <Text size="sm" c="dimmed" mt="xs">
              {t("ev.noRunMatches")}
            </Text>
          )}
          {total > RUNS_PAGE && (
            <Pagination
              mt="sm"
              total={Math.ceil(total / RUNS_PAGE)}
              value={page}
              onChange={(p) => navigate({ kind: "campaign", id: c.id, query: { ...query, page: p } }, { replace: true })}
              data-testid="runs-pages"
            />
          )}
        </>
      )}
    </Card>
  );
}
