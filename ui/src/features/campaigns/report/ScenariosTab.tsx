import { Group, Stack, Table, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { useEngineText } from "../../../i18n/engine";
import type { CampaignReport, ScenarioSummary } from "../../../api";
import { num, pct } from "../../../components/format";
import { Link } from "../../../components/Link";
import { CheckKindBadge } from "../../../components/labels";

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
                  <Group key={i} gap={4} wrap="nowrap" align="flex-start">
                    <CheckKindBadge kind={c.kind} passed={false} />
                    <Link
                      to={{ kind: "run", id, rid: c.example_run_id, turn: null }}
                      size="xs"
                      data-testid="failed-check-link"
                      title={t("ev.openExampleRun")}
                    >
                      {t("ev.timesN", { what: tx(c.detail), n: num(c.count) })}
                    </Link>
                  </Group>
                ))}
              </Stack>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
