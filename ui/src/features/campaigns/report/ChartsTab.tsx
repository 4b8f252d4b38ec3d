import { BarChart, DonutChart, LineChart } from "@mantine/charts";
import { Stack } from "@mantine/core";
import { useReducedMotion } from "@mantine/hooks";
import { useTranslation } from "react-i18next";
import type { CampaignReport, Tally } from "../../../api";
import { num, pct } from "../../../components/format";
import { ChartFigure } from "./ChartFigure";

type Group = { name: string; tally: Tally };

/** Verdicts, results by pack and tag, and the pass rate over the window; each chart with its table. */
export function ChartsTab({ report }: { report: CampaignReport }) {
  const { t } = useTranslation();
  // The charts draw at once, without growing into place, when the system asks for reduced motion.
  const animate = !useReducedMotion();
  const fixed = report.fixed;
  const byPack = Object.values(
    fixed.per_scenario.reduce<Record<string, Group>>((acc, r) => {
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
  const groups = (title: string, heading: string, list: Group[], testId: string) => (
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
  const timeline = fixed.timeline.map((p) => ({
    hour: num(p.offset_hours ?? 0, 1),
    rate: p.tally.pass_rate == null ? null : Math.round(p.tally.pass_rate * 1000) / 10,
  }));
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
        <DonutChart
          withLabelsLine
          withLabels
          valueFormatter={(v) => num(v)}
          pieProps={{ isAnimationActive: animate }}
          pieChartProps={{ accessibilityLayer: false }}
          data={[
            { name: t("view.passed"), value: fixed.passed, color: "teal.6" },
            { name: t("view.failed"), value: fixed.failed, color: "red.6" },
            { name: t("view.errors"), value: fixed.errors, color: "gray.5" },
          ]}
        />
      </ChartFigure>
      {byPack.length > 0 && groups(t("report.byPack"), t("report.pack"), byPack, "chart-packs")}
      {timeline.length > 1 && (
        <ChartFigure
          title={t("report.timeline")}
          testId="chart-timeline"
          summary={t("report.timelineSummary", {
            first: pct(fixed.timeline[0]?.tally.pass_rate),
            last: pct(fixed.timeline[fixed.timeline.length - 1]?.tally.pass_rate),
            hours: timeline[timeline.length - 1]?.hour ?? "",
            n: num(timeline.length),
          })}
          data={{
            columns: [t("report.hour"), t("report.passRate")],
            rows: fixed.timeline.map((p, i) => [timeline[i]?.hour ?? "", pct(p.tally.pass_rate)]),
          }}
        >
          <LineChart
            h={220}
            data={timeline}
            dataKey="hour"
            connectNulls
            series={[{ name: "rate", color: "indigo.6", label: t("report.passRate") }]}
            unit="%"
            lineChartProps={{ accessibilityLayer: false }}
            lineProps={{ isAnimationActive: animate }}
          />
        </ChartFigure>
      )}
      {fixed.per_tag.length > 0 && groups(t("report.byTag"), t("report.tag"), fixed.per_tag, "chart-tags")}
    </Stack>
  );
}
