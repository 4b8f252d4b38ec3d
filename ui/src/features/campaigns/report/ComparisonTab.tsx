import { BarChart } from "@mantine/charts";
import { Badge, Group, Select, Stack, Table, Text, Title } from "@mantine/core";
import { useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { api, type Campaign, type CampaignReport, type CampaignSide, type PeriodDelta, type ScenarioComparison } from "../../../api";
import { ErrorAlert } from "../../../components/ErrorAlert";
import { DASH, num, pct, signedPct, when } from "../../../components/format";
import { Link } from "../../../components/Link";
import { useLoad } from "../../../components/useLoad";
import { useEngineText } from "../../../i18n/engine";
import { CodeSpans } from "../../../components/CodeSpans";
import { TasksCompared } from "./TasksTable";

const CHANGE_COLOR: Record<ScenarioComparison["change"], string> = {
  broke: "red",
  fixed: "teal",
  same: "gray",
  only_baseline: "gray",
  only_current: "gray",
};

/** The campaign a comparison starts from: the latest earlier period, the one this followed, else the latest other. */
function defaultBaseline(report: CampaignReport, others: Campaign[]): string | null {
  const c = report.campaign;
  const earlier = report.comparison?.periods[0]?.campaign_id;
  if (earlier && others.some((o) => o.id === earlier)) return earlier;
  if (c.previous_campaign_id && others.some((o) => o.id === c.previous_campaign_id)) return c.previous_campaign_id;
  return others[0]?.id ?? null;
}

/** This campaign beside any other of its target: both sides' figures, the change with its noise, each scenario fixed or broken. */
export function ComparisonTab({ report }: { report: CampaignReport }) {
  const { t } = useTranslation();
  const c = report.campaign;
  const others = useLoad(
    async () =>
      (await api.listCampaigns())
        .filter((o) => o.target_id === c.target_id && o.id !== c.id)
        .sort((a, b) => Date.parse(b.window_start) - Date.parse(a.window_start)),
    [c.id, c.target_id],
  );
  const [picked, setPicked] = useState<string | null>(null);
  const baseline = picked ?? (others.data ? defaultBaseline(report, others.data) : null);
  const side = useLoad(async () => (baseline ? api.compareCampaigns(c.id, baseline) : null), [c.id, baseline]);

  if (others.data && others.data.length === 0) {
    return (
      <Text c="dimmed" data-testid="no-comparison">
        {t("report.noComparison")}
      </Text>
    );
  }
  const cmp = side.data;
  return (
    <Stack data-testid="comparison">
      <Select
        label={t("cmp.baseline")}
        description={t("cmp.baselineHint")}
        data={(others.data ?? []).map((o) => ({ value: o.id, label: `${o.name} · ${when(o.window_start)}` }))}
        value={baseline}
        onChange={(v) => v && setPicked(v)}
        allowDeselect={false}
        searchable
        maw={520}
        data-testid="comparison-baseline"
      />
      <ErrorAlert error={others.error ?? side.error} />
      {cmp && (
        <>
          <SidesTable baseline={cmp.baseline} current={cmp.current} />
          <Change cmp={cmp.change} />
          <ScenarioTable campaignId={c.id} baselineId={cmp.baseline.campaign_id} rows={cmp.scenarios} />
          <TasksCompared
            now={report.fixed.per_group_tasks ?? []}
            then={report.comparison?.periods.find((p) => p.campaign_id === cmp.baseline.campaign_id)}
          />
        </>
      )}
      {report.comparison && report.comparison.periods.length > 0 && (
        <Stack gap={4}>
          <Title order={5}>{t("cmp.trend")}</Title>
          <BarChart
            h={200}
            data={[
              ...[...report.comparison.periods].reverse().map((p) => ({ campaign: p.campaign_name, rate: Math.round((p.pass_rate ?? 0) * 1000) / 10 })),
              { campaign: c.name, rate: Math.round((report.fixed.pass_rate ?? 0) * 1000) / 10 },
            ]}
            dataKey="campaign"
            unit="%"
            series={[{ name: "rate", color: "indigo.6", label: t("report.passRate") }]}
          />
        </Stack>
      )}
    </Stack>
  );
}

function SidesTable({ baseline, current }: { baseline: CampaignSide; current: CampaignSide }) {
  const { t } = useTranslation();
  const sides = [baseline, current];
  const ks = [...new Set(sides.flatMap((s) => s.pass_at_k.map((p) => p.k)))].sort((a, b) => a - b);
  const row = (label: string, cell: (s: CampaignSide) => ReactNode, testId?: string) => (
    <Table.Tr data-testid={testId}>
      <Table.Th scope="row">{label}</Table.Th>
      {sides.map((s) => (
        <Table.Td key={s.campaign_id}>{cell(s)}</Table.Td>
      ))}
    </Table.Tr>
  );
  const explored = sides.some((s) => s.exploration);
  const exploration = (s: CampaignSide, pick: (e: NonNullable<CampaignSide["exploration"]>) => string) => (s.exploration ? pick(s.exploration) : DASH);
  return (
    <Stack gap={4}>
      <Table withTableBorder data-testid="comparison-sides">
        <Table.Thead>
          <Table.Tr>
            <Table.Th />
            <Table.Th>
              {t("cmp.baselineColumn")}
              <Link to={{ kind: "campaign", id: baseline.campaign_id, query: {} }} size="sm" display="block">
                {baseline.campaign_name}
              </Link>
            </Table.Th>
            <Table.Th>
              {t("cmp.currentColumn")}
              <Text size="sm" fw={500}>
                {current.campaign_name}
              </Text>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {row(t("cmp.window"), (s) => t("view.window", { start: when(s.window_start), end: when(s.window_end) }))}
          {row(
            t("report.passRate"),
            (s) => (
              <>
                <Text fw={600}>{pct(s.pass_rate)}</Text>
                <Text size="xs" c="dimmed">
                  {s.pass_rate_interval ? t("ev.interval", { low: pct(s.pass_rate_interval.low), high: pct(s.pass_rate_interval.high) }) : DASH}
                </Text>
              </>
            ),
            "comparison-pass-rate",
          )}
          {row(t("cmp.judged"), (s) => t("cmp.passedOf", { passed: num(s.passed), judged: num(s.passed + s.failed), errors: num(s.errors) }))}
          {ks.map((k) => row(t("cmp.passK", { k }), (s) => pct(s.pass_at_k.find((p) => p.k === k)?.value ?? null), `comparison-pass-k-${k}`))}
          {explored && row(t("cmp.sessions"), (s) => exploration(s, (e) => num(e.sessions)), "comparison-sessions")}
          {explored &&
            row(t("report.achievement"), (s) =>
              exploration(s, (e) => t("cmp.achieved", { rate: pct(e.goal_achievement_rate), n: num(e.goals_achieved), records: num(e.records) })),
            )}
          {explored && row(t("cmp.issues"), (s) => exploration(s, (e) => num(e.issues)))}
          {explored && row(t("cmp.simulatorFaults"), (s) => exploration(s, (e) => num(e.simulator_faults)))}
        </Table.Tbody>
      </Table>
      {ks.length > 0 && (
        <Text size="xs" c="dimmed" data-testid="pass-k-explained">
          {t("cmp.passKHint")}
        </Text>
      )}
      <Text size="xs" c="dimmed">
        {explored ? t("cmp.explorationApart") : t("cmp.noExploration")}
      </Text>
    </Stack>
  );
}

function Change({ cmp }: { cmp: PeriodDelta }) {
  const { t } = useTranslation();
  const tx = useEngineText();
  return (
    <Stack gap={4} data-testid="comparison-change">
      <Group gap="xs">
        <Badge color={cmp.within_noise ? "gray" : (cmp.delta ?? 0) >= 0 ? "teal" : "red"} variant="light" data-testid="comparison-verdict">
          {cmp.within_noise ? t("report.withinNoise") : signedPct(cmp.delta)}
        </Badge>
        {cmp.ci_low != null && cmp.ci_high != null && (
          <Text size="xs" c="dimmed">
            {t("ev.interval", { low: signedPct(cmp.ci_low), high: signedPct(cmp.ci_high) })}
          </Text>
        )}
      </Group>
      <Text size="sm">
        <CodeSpans text={tx(cmp.verdict)} />
      </Text>
      {cmp.warnings.map((w, i) => (
        <Text key={i} size="xs" c="orange">
          <CodeSpans text={tx(w)} />
        </Text>
      ))}
    </Stack>
  );
}

function ScenarioTable({ campaignId, baselineId, rows }: { campaignId: string; baselineId: string; rows: ScenarioComparison[] }) {
  const { t } = useTranslation();
  const result = (r: ScenarioComparison["baseline"]) => (r ? t("cmp.passedOfJudged", { passed: num(r.passed), judged: num(r.judged) }) : DASH);
  return (
    <Table data-testid="comparison-scenarios">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t("cmp.scenario")}</Table.Th>
          <Table.Th>{t("cmp.baselineColumn")}</Table.Th>
          <Table.Th>{t("cmp.currentColumn")}</Table.Th>
          <Table.Th>{t("cmp.change")}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((r) => (
          <Table.Tr key={r.scenario_id} data-testid="comparison-scenario" data-change={r.change}>
            <Table.Td>{r.title}</Table.Td>
            <Table.Td>
              <Link to={{ kind: "campaign", id: baselineId, query: { scenario: r.scenario_id } }} size="sm">
                {result(r.baseline)}
              </Link>
            </Table.Td>
            <Table.Td>
              <Link to={{ kind: "campaign", id: campaignId, query: { scenario: r.scenario_id } }} size="sm" data-testid="flip-link">
                {result(r.current)}
              </Link>
            </Table.Td>
            <Table.Td>
              <Badge color={CHANGE_COLOR[r.change]} variant="light">
                {t(`cmp.changes.${r.change}`)}
              </Badge>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
