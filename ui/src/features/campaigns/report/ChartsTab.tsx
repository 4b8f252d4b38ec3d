import { BarChart, DonutChart, LineChart } from "@mantine/charts";
import { ColorSwatch, Group, Stack, Text } from "@mantine/core";
import { useReducedMotion } from "@mantine/hooks";
import { useTranslation } from "react-i18next";
import type { CampaignReport, Tally } from "../../../api";
import { num, pct } from "../../../components/format";
import { ChartFigure } from "./ChartFigure";
import { TasksChart } from "./TasksChart";

type Tallied = { name: string; tally: Tally };

/** Verdicts, results by pack and tag, tasks per difficulty group and the pass rate over the window; each chart with its table. */
export function ChartsTab({ report }: { report: CampaignReport }) {
  const { t } = useTranslation();
  // The charts draw at once, without growing into place, when the system asks for reduced motion.
  const animate = !useReducedMotion();
  const fixed = report.fixed;
  const byPack = Object.values(
    fixed.per_scenario.reduce<Record<string, Tallied>>((acc, r) => {
      const name = r.pack || "—";
      const g = (acc[name] ??= { name, tally: { passed: 0, failed: 0, errors: 0, pass_rate: null } });
      g.tally.passed += r.tally.passed;
      g.tally.failed += r.tally.failed;
      g.tally.errors += r.tally.errors;
      return acc;
    }, {}),
  );
  const series = [
    { name: "passed", color: "teal.6", label: t("view.passed") },
    { name: "failed", color: "red.6", label: t("view.failed") },
    { name: "errors", color: "gray.5", label: t("view.errors") },
  ];
  const verdictsOf = (tally: Pick<Tally, "passed" | "failed" | "errors">) =>
    t("report.verdictSummary", { passed: num(tally.passed), failed: num(tally.failed), errors: num(tally.errors) });
  /** A stacked bar chart of verdicts per group (pack or tag), its summary and its table. */
  const groups = (title: string, heading: string, list: Tallied[], testId: string) => (
    <ChartFigure
      title={title}
      testId={testId}
      summary={`${title}: ${list.map((g) => `${g.name}, ${verdictsOf(g.tally)}`).join("; ")}`}
      data={{
        columns: [heading, t("view.passed"), t("view.failed"), t("view.errors")],
        rows: list.map((g) => [g.name, num(g.tally.passed), num(g.tally.failed), num(g.tally.errors)]),
      }}
    >
      <BarChart
        h={240}
        data={list.map((g) => ({ name: g.name, passed: g.tally.passed, failed: g.tally.failed, errors: g.tally.errors }))}
        dataKey="name"
        type="stacked"
        series={series}
        withLegend
        valueFormatter={(v) => num(v)}
        barChartProps={{ accessibilityLayer: false }}
        barProps={{ isAnimationActive: animate }}
      />
    </ChartFigure>
  );
  // The x axis is campaign time since the window start: hours, or days for a window longer than three.
  const spanHours = Math.max(0, ...fixed.timeline.map((p) => p.offset_hours ?? 0));
  const inDays = spanHours > 72;
  const timeline = fixed.timeline.map((p) => ({
    at: Math.round(((p.offset_hours ?? 0) / (inDays ? 24 : 1)) * 10) / 10,
    rate: p.tally.pass_rate == null ? null : Math.round(p.tally.pass_rate * 1000) / 10,
  }));
  // Round ticks: whole hours (1, 2, 3, 6, 12, 24 apart) or days (1, 2, 7, 14, 30 apart), at most six steps.
  const span = Math.max(1, ...timeline.map((p) => p.at));
  const step = (inDays ? [1, 2, 7, 14, 30, 60, 90] : [1, 2, 3, 6, 12, 24]).find((s) => span / s <= 6) ?? Math.ceil(span / 6);
  const ticks = Array.from({ length: Math.ceil(span / step) + 1 }, (_, i) => i * step);
  const finished = fixed.passed + fixed.failed + fixed.errors;
  const verdictSlices = [
    { name: t("view.passed"), value: fixed.passed, color: "teal.6", swatch: "var(--mantine-color-teal-6)" },
    { name: t("view.failed"), value: fixed.failed, color: "red.6", swatch: "var(--mantine-color-red-6)" },
    { name: t("view.errors"), value: fixed.errors, color: "gray.5", swatch: "var(--mantine-color-gray-5)" },
  ];
  return (
    <Stack>
      <ChartFigure
        title={t("report.verdicts")}
        testId="chart-verdicts"
        summary={`${t("report.verdicts")}: ${verdictsOf(fixed)}`}
        data={{
          columns: [t("report.verdict"), t("report.runs")],
          rows: [
            [t("view.passed"), num(fixed.passed)],
            [t("view.failed"), num(fixed.failed)],
            [t("view.errors"), num(fixed.errors)],
          ],
        }}
      >
        <Group gap="xl" align="center" wrap="nowrap">
          <DonutChart
            size={180}
            thickness={26}
            withLabelsLine={false}
            withLabels={false}
            chartLabel={t("report.verdictCenter", { rate: pct(fixed.pass_rate) })}
            valueFormatter={(v) => num(v)}
            pieProps={{ isAnimationActive: animate }}
            pieChartProps={{ accessibilityLayer: false }}
            data={verdictSlices.map(({ name, value, color }) => ({ name, value, color }))}
          />
          {/* What the ring measures, and each slice with its count and share. */}
          <Stack gap={6} data-testid="verdict-legend">
            <Text size="sm" c="dimmed">
              {t("report.verdictLegend", { n: num(finished) })}
            </Text>
            {verdictSlices.map((v) => (
              <Group key={v.name} gap={8} wrap="nowrap">
                <ColorSwatch color={v.swatch} size={12} withShadow={false} aria-hidden />
                <Text size="sm">
                  {v.name} {num(v.value)} ({pct(finished ? v.value / finished : null)})
                </Text>
              </Group>
            ))}
          </Stack>
        </Group>
      </ChartFigure>
      {byPack.length > 0 && groups(t("report.byPack"), t("report.pack"), byPack, "chart-packs")}
      <TasksChart rows={fixed.per_group_tasks ?? []} animate={animate} />
      {timeline.length > 1 && (
        <ChartFigure
          title={t("report.timeline")}
          testId="chart-timeline"
          summary={t("report.timelineSummary", {
            first: pct(fixed.timeline[0]?.tally.pass_rate),
            last: pct(fixed.timeline[fixed.timeline.length - 1]?.tally.pass_rate),
            hours: num(spanHours, 1),
            n: num(timeline.length),
          })}
          data={{
            columns: [inDays ? t("report.day") : t("report.hour"), t("report.passRate")],
            rows: fixed.timeline.map((p, i) => [num(timeline[i]?.at ?? 0, 1), pct(p.tally.pass_rate)]),
          }}
        >
          <LineChart
            h={240}
            data={timeline}
            dataKey="at"
            connectNulls
            series={[{ name: "rate", color: "indigo.6", label: t("report.passRate") }]}
            unit="%"
            xAxisLabel={inDays ? t("report.daysAxis") : t("report.hoursAxis")}
            yAxisLabel={t("report.passRateAxis")}
            xAxisProps={{ type: "number", domain: [0, ticks[ticks.length - 1] ?? step], ticks, tickFormatter: (v: number) => num(v, 0) }}
            yAxisProps={{ domain: [0, 100] }}
            lineChartProps={{ accessibilityLayer: false }}
            lineProps={{ isAnimationActive: animate }}
          />
        </ChartFigure>
      )}
      {fixed.per_tag.length > 0 && groups(t("report.byTag"), t("report.tag"), fixed.per_tag, "chart-tags")}
    </Stack>
  );
}
