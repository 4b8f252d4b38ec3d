import { Drawer, Tabs, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { CampaignReport, ScenarioSummary } from "../../api";
import { when } from "../../components/format";
import { navigate, REPORT_TABS, type ReportTab, type Route } from "../../routing";
import { AnalysisTab } from "./report/AnalysisTab";
import { ChartsTab } from "./report/ChartsTab";
import { ComparisonTab } from "./report/ComparisonTab";
import { ExplorationTab } from "./report/ExplorationTab";
import { ScenariosTab } from "./report/ScenariosTab";
import { ScoresTab } from "./report/ScoresTab";

const TAB_LABEL: Record<ReportTab, string> = {
  scores: "report.scores",
  scenarios: "report.scenarios",
  charts: "report.charts",
  analysis: "report.analysis",
  comparison: "report.comparison",
  exploration: "report.exploration",
};

/** The campaign's report; each tab has its URL (`#/campaigns/:id/report/:tab`). */
export function ReportDrawer(props: {
  report: CampaignReport;
  /** The loaded scenarios, to name scenarios the report only knows by id. */
  scenarios: ScenarioSummary[];
  route: Extract<Route, { kind: "report" }>;
  live: boolean;
  onClose: () => void;
  onChanged: () => void;
}) {
  const { t } = useTranslation();
  const { report, route } = props;
  const setTab = (tab: string | null) => {
    const next = REPORT_TABS.find((x) => x === tab);
    if (next) navigate({ kind: "report", id: route.id, tab: next }, { replace: true });
  };
  return (
    <Drawer opened onClose={props.onClose} position="right" size="xl" title={t("report.title")} data-testid="report-drawer">
      <Text size="xs" c="dimmed" mb="sm">
        {t("report.generatedAt", { at: when(report.generated_at) })}
      </Text>
      <Tabs value={route.tab} onChange={setTab} keepMounted={false} data-testid="report-tabs">
        <Tabs.List>
          {REPORT_TABS.map((tab) => (
            <Tabs.Tab key={tab} value={tab} data-testid={`tab-${tab}`}>
              {t(TAB_LABEL[tab])}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="scores" pt="md">
          <ScoresTab report={report} />
        </Tabs.Panel>
        <Tabs.Panel value="scenarios" pt="md">
          <ScenariosTab report={report} scenarios={props.scenarios} />
        </Tabs.Panel>
        <Tabs.Panel value="charts" pt="md">
          <ChartsTab report={report} />
        </Tabs.Panel>
        <Tabs.Panel value="analysis" pt="md">
          <AnalysisTab report={report} onChanged={props.onChanged} />
        </Tabs.Panel>
        <Tabs.Panel value="comparison" pt="md">
          <ComparisonTab report={report} />
        </Tabs.Panel>
        <Tabs.Panel value="exploration" pt="md">
          <ExplorationTab report={report} issue={route.issue ?? null} cell={route.cell ?? null} live={props.live} />
        </Tabs.Panel>
      </Tabs>
    </Drawer>
  );
}
