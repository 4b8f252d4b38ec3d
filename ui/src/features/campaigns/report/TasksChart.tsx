import { BarChart } from "@mantine/charts";
import { Stack, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { GroupTasks } from "../../../api";
import { num, pct } from "../../../components/format";
import { ChartFigure } from "./ChartFigure";
import { useGroupName } from "./TasksTable";

/** A share 0..1 as a percentage 0..100 with one decimal, as the chart draws it; none stays none. */
const percent = (v: number | null) => (v == null ? null : Math.round(v * 1000) / 10);

/**
 * The office benchmark's figures per difficulty group as charts: task
 * completion and key-field coverage side by side (percent), and the mean
 * steps per task; the table under them holds the same figures.
 */
export function TasksChart({ rows, animate }: { rows: GroupTasks[]; animate: boolean }) {
  const { t } = useTranslation();
  const groupName = useGroupName();
  if (rows.length === 0) return null;
  const data = rows.map((g) => ({
    group: groupName(g.group),
    completion: percent(g.completion_rate),
    keyFields: percent(g.key_field_coverage),
    steps: g.steps_mean == null ? null : Math.round(g.steps_mean * 10) / 10,
  }));
  const summary = rows
    .map((g) =>
      t("tasks.chartGroup", {
        group: groupName(g.group),
        completion: pct(g.completion_rate),
        keyFields: pct(g.key_field_coverage),
        steps: num(g.steps_mean, 1),
      }),
    )
    .join("; ");
  // Every group named under its bars; whole steps on the axis, at most six ticks, the highest above every bar.
  const ticks = { interval: 0 as const };
  const most = Math.max(1, ...data.map((d) => Math.ceil(d.steps ?? 0)));
  const every = Math.ceil(most / 5);
  const stepTicks = Array.from({ length: Math.ceil(most / every) + 1 }, (_, i) => i * every);
  // Room above the highest tick for its label.
  const margin = { top: 12, right: 8, bottom: 5, left: 5 };
  return (
    <ChartFigure
      title={t("tasks.title")}
      testId="chart-tasks"
      summary={`${t("tasks.title")}: ${summary}`}
      data={{
        columns: [t("tasks.group"), t("tasks.runs"), t("tasks.completion"), t("tasks.keyFields"), t("tasks.steps")],
        rows: rows.map((g) => [groupName(g.group), num(g.runs), pct(g.completion_rate), pct(g.key_field_coverage), num(g.steps_mean, 1)]),
      }}
    >
      <Stack gap="md">
        <Stack gap={4}>
          <Text size="sm" c="dimmed">
            {t("tasks.chartRates")}
          </Text>
          <BarChart
            h={240}
            data={data}
            dataKey="group"
            series={[
              { name: "completion", color: "teal.6", label: t("tasks.completion") },
              { name: "keyFields", color: "indigo.5", label: t("tasks.keyFields") },
            ]}
            withLegend
            legendProps={{ verticalAlign: "bottom", height: 36 }}
            unit="%"
            maxBarWidth={56}
            valueFormatter={(v) => num(v, 1)}
            yAxisProps={{ domain: [0, 100], ticks: [0, 25, 50, 75, 100], tickFormatter: (v: number) => num(v) }}
            xAxisProps={ticks}
            barChartProps={{ accessibilityLayer: false, margin }}
            barProps={{ isAnimationActive: animate }}
          />
        </Stack>
        <Stack gap={4}>
          <Text size="sm" c="dimmed">
            {t("tasks.steps")}
          </Text>
          <BarChart
            h={160}
            data={data}
            dataKey="group"
            series={[{ name: "steps", color: "grape.6", label: t("tasks.steps") }]}
            maxBarWidth={56}
            valueFormatter={(v) => num(v, 1)}
            yAxisProps={{ domain: [0, stepTicks[stepTicks.length - 1] ?? most], ticks: stepTicks, tickFormatter: (v: number) => num(v) }}
            xAxisProps={ticks}
            barChartProps={{ accessibilityLayer: false, margin }}
            barProps={{ isAnimationActive: animate }}
          />
        </Stack>
      </Stack>
    </ChartFigure>
  );
}
