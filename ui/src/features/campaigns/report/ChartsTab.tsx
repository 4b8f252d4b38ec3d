import { BarChart, DonutChart, LineChart } from "@mantine/charts";
import { Stack, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { CampaignReport } from "../../../api";
import { num } from "../../../components/format";

/** Verdicts, results by pack and tag, and the pass rate over the window. */
export function ChartsTab({ report }: { report: CampaignReport }) {
  const { t } = useTranslation();
  const fixed = report.fixed;
  const byPack = Object.values(
    fixed.per_scenario.reduce<Record<string, { pack: string; passed: number; failed: number; errors: number }>>((acc, r) => {
      const key = r.pack || "—";
      const p = (acc[key] ??= { pack: key, passed: 0, failed: 0, errors: 0 });
      p.passed += r.tally.passed;
      p.failed += r.tally.failed;
      p.errors += r.tally.errors;
      return acc;
    }, {}),
  );
  const series = [
    { name: "passed", color: "teal.6", label: t("view.passed") },
    { name: "failed", color: "red.6", label: t("view.failed") },
    { name: "errors", color: "gray.5", label: t("view.errors") },
  ];
  return (
    <Stack>
      <Text fw={500}>{t("report.verdicts")}</Text>
      <DonutChart
        withLabelsLine
        withLabels
        valueFormatter={(v) => num(v)}
        data={[
          { name: t("view.passed"), value: fixed.passed, color: "teal.6" },
          { name: t("view.failed"), value: fixed.failed, color: "red.6" },
          { name: t("view.errors"), value: fixed.errors, color: "gray.5" },
        ]}
      />
      {byPack.length > 0 && (
        <>
          <Text fw={500}>{t("report.byPack")}</Text>
          <BarChart h={240} data={byPack} dataKey="pack" type="stacked" series={series} withLegend valueFormatter={(v) => num(v)} />
        </>
      )}
      {fixed.timeline.length > 1 && (
        <>
          <Text fw={500}>{t("report.timeline")}</Text>
          <LineChart
            h={220}
            data={fixed.timeline.map((p) => ({
              hour: num(p.offset_hours ?? 0, 1),
              rate: p.tally.pass_rate == null ? null : Math.round(p.tally.pass_rate * 1000) / 10,
            }))}
            dataKey="hour"
            connectNulls
            series={[{ name: "rate", color: "indigo.6", label: t("report.passRate") }]}
            unit="%"
          />
        </>
      )}
      {fixed.per_tag.length > 0 && (
        <>
          <Text fw={500}>{t("report.byTag")}</Text>
          <BarChart
            h={220}
            data={fixed.per_tag.map((g) => ({ tag: g.name, passed: g.tally.passed, failed: g.tally.failed, errors: g.tally.errors }))}
            dataKey="tag"
            type="stacked"
            series={series}
            withLegend
            valueFormatter={(v) => num(v)}
          />
        </>
      )}
    </Stack>
  );
}
