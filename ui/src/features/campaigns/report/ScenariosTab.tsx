import { Badge, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { useEngineText } from "../../../i18n/engine";
import type { CampaignReport, ScenarioSummary } from "../../../api";
import { num, pct } from "../../../components/format";
import { Link } from "../../../components/Link";
import { CheckKindBadge } from "../../../components/labels";
import { CodeSpans } from "../../../components/CodeSpans";

/** The per-scenario table; every scenario opens its runs, every failed check the run it failed in. */
export function ScenariosTab({ report, scenarios }: { report: CampaignReport; scenarios: ScenarioSummary[] }) {
  const { t } = useTranslation();
  const tx = useEngineText();
  const known = new Map(scenarios.map((x) => [x.id, x]));
  const id = report.campaign.id;
  const rows = report.fixed.per_scenario.map((r) => {
    const k = known.get(r.scenario_id);
    return {
      ...r,
      title: r.title && r.title !== r.scenario_id ? r.title : (k?.title ?? r.title),
      pack: r.pack || (k?.pack ?? ""),
      group: r.group ?? k?.group ?? null,
    };
  });
  if (rows.length === 0) return <Text c="dimmed">{t("report.noScenarioRows")}</Text>;
  return (
    <Stack>
    <Guarded report={report} />
    <Table striped data-testid="report-scenarios">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t("form.scenarios")}</Table.Th>
          <Table.Th>{t("view.passed")}</Table.Th>
          <Table.Th>{t("view.failed")}</Table.Th>
          <Table.Th>{t("view.errors")}</Table.Th>
          <Table.Th>{t("report.passRateInterval")}</Table.Th>
          <Table.Th>{t("report.failingChecks")}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((r) => (
          <Table.Tr key={r.scenario_id}>
            <Table.Td>
              <Link to={{ kind: "campaign", id, query: { scenario: r.scenario_id } }} size="sm" data-testid="scenario-runs-link">
                {r.title}
              </Link>
              <Text size="xs" c="dimmed">
                {r.pack}
                {r.group ? ` · ${r.group}` : ""}
              </Text>
            </Table.Td>
            <Table.Td>{num(r.tally.passed)}</Table.Td>
            <Table.Td>{num(r.tally.failed)}</Table.Td>
            <Table.Td>{num(r.tally.errors)}</Table.Td>
            <Table.Td data-testid="scenario-pass-rate">
              {pct(r.tally.pass_rate)}
              {r.tally.interval && (
                <Text size="xs" c="dimmed" style={{ whiteSpace: "nowrap" }}>
                  {t("ev.intervalShort", { low: pct(r.tally.interval.low), high: pct(r.tally.interval.high) })}
                </Text>
              )}
            </Table.Td>
            <Table.Td>
              <Stack gap={4}>
                {r.failing_checks.slice(0, 3).map((c, i) => (
                  // The one-line badge and its sentence wrap as a pair, so a narrow column puts the sentence under the badge.
                  <Group key={i} gap={4} wrap="wrap" align="flex-start">
                    <CheckKindBadge kind={c.kind} passed={false} />
                    <Link
                      to={{ kind: "run", id, rid: c.example_run_id, turn: null }}
                      size="xs"
                      data-testid="failed-check-link"
                      title={t("ev.openExampleRun")}
                    >
                      <CodeSpans text={t("ev.timesN", { what: tx(c.detail), n: num(c.count) })} />
                    </Link>
                  </Group>
                ))}
              </Stack>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
    </Stack>
  );
}

/** The scenarios drafted from exploration findings, with where each was found and how it fared in this period. */
function Guarded({ report }: { report: CampaignReport }) {
  const { t } = useTranslation();
  const guarded = report.guarded ?? [];
  if (guarded.length === 0) return null;
  return (
    <Stack gap={6} data-testid="guarded-scenarios">
      <Title order={5}>{t("report.guarded")}</Title>
      {guarded.map((g) => (
        <Group key={g.scenario_id} gap="xs" wrap="nowrap" align="flex-start" data-testid="guarded-scenario">
          <Badge color={g.tally.failed > 0 ? "red" : "teal"} variant="light" style={{ flexShrink: 0 }}>
            {t("report.guardedResult", { passed: num(g.tally.passed), failed: num(g.tally.failed) })}
          </Badge>
          <Stack gap={0} style={{ minWidth: 0 }}>
            <Link to={{ kind: "campaign", id: report.campaign.id, query: { scenario: g.scenario_id } }} size="sm">
              {g.title}
            </Link>
            <Text size="xs" c="dimmed">
              {g.lineage.finding}{" "}
              <Link to={{ kind: "session", id: g.lineage.campaign_id, sid: g.lineage.session_id, turn: g.lineage.turn }} size="xs">
                {t("report.guardedFrom", { n: num(g.lineage.turn) })}
              </Link>
            </Text>
          </Stack>
        </Group>
      ))}
    </Stack>
  );
}
