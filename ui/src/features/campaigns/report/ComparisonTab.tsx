import { BarChart } from "@mantine/charts";
import { Badge, Group, Stack, Table, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { CampaignReport, ScenarioSummary } from "../../../api";
import { num, pct, signedPct, when } from "../../../components/format";
import { Link } from "../../../components/Link";
import { useEngineText } from "../../../i18n/engine";

/** Earlier periods: pass rates, the noise floor, and the scenarios that flipped (each opens its runs). */
export function ComparisonTab({ report, scenarios }: { report: CampaignReport; scenarios: ScenarioSummary[] }) {
  const { t } = useTranslation();
  const tx = useEngineText();
  const cmp = report.comparison;
  const fixed = report.fixed;
  const id = report.campaign.id;
  const title = (sid: string) => scenarios.find((s) => s.id === sid)?.title ?? sid;
  if (!cmp || cmp.periods.length === 0) return <Text c="dimmed">{t("report.noComparison")}</Text>;
  return (
    <Stack>
      <Group gap="xs">
        {cmp.pass_at_k.map((p) => (
          <Badge key={p.k} variant="light">
            {t("ev.passAtK", { k: p.k, value: pct(p.value) })}
          </Badge>
        ))}
        {cmp.within_period_flip_rate != null && (
          <Badge variant="light">{t("ev.labelValue", { label: t("report.flipRate"), value: pct(cmp.within_period_flip_rate) })}</Badge>
        )}
      </Group>
      <BarChart
        h={220}
        data={[
          ...[...cmp.periods].reverse().map((p) => ({ campaign: p.campaign_name, rate: Math.round((p.pass_rate ?? 0) * 1000) / 10 })),
          { campaign: report.campaign.name, rate: Math.round((fixed.pass_rate ?? 0) * 1000) / 10 },
        ]}
        dataKey="campaign"
        unit="%"
        series={[{ name: "rate", color: "indigo.6", label: t("report.passRate") }]}
      />
      <Table data-testid="comparison-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t("ev.period")}</Table.Th>
            <Table.Th>{t("report.passRate")}</Table.Th>
            <Table.Th>{t("ev.change")}</Table.Th>
            <Table.Th>{t("ev.verdictAndFlips")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {cmp.periods.map((p) => (
            <Table.Tr key={p.campaign_id}>
              <Table.Td>
                <Link to={{ kind: "campaign", id: p.campaign_id, query: {} }} size="sm">
                  {p.campaign_name}
                </Link>
                <Text size="xs" c="dimmed">
                  {when(p.window_start)}
                </Text>
              </Table.Td>
              <Table.Td>
                {pct(p.pass_rate)}
                <Text size="xs" c="dimmed">
                  {t("ev.judgedRuns", { count: p.judged_runs, n: num(p.judged_runs) })}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge color={p.within_noise ? "gray" : (p.delta ?? 0) >= 0 ? "teal" : "red"} variant="light" data-testid="comparison-verdict">
                  {p.within_noise ? t("report.withinNoise") : signedPct(p.delta)}
                </Badge>
                {p.ci_low != null && p.ci_high != null && (
                  <Text size="xs" c="dimmed">
                    {t("ev.interval", { low: signedPct(p.ci_low), high: signedPct(p.ci_high) })}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Text size="sm">{tx(p.verdict)}</Text>
                {p.warnings.map((w, i) => (
                  <Text key={i} size="xs" c="orange">
                    {tx(w)}
                  </Text>
                ))}
                {p.flipped_scenarios.length > 0 && (
                  <Group gap={6} mt={4}>
                    <Text size="xs" c="dimmed">
                      {t("ev.flipped", { rate: pct(p.flip_rate) })}
                    </Text>
                    {p.flipped_scenarios.map((sid) => (
                      <Link key={sid} to={{ kind: "campaign", id, query: { scenario: sid } }} size="xs" data-testid="flip-link">
                        {title(sid)}
                      </Link>
                    ))}
                  </Group>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
