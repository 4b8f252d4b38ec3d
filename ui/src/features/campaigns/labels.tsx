import { Badge } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { CampaignReport, CampaignStatus, ExplorationView } from "../../api";

const STATUS_COLOR: Record<CampaignStatus, string> = {
  draft: "gray",
  scheduled: "blue",
  running: "green",
  finalized: "dark",
  cancelled: "red",
};

export function StatusBadge({ status }: { status: CampaignStatus }) {
  const { t } = useTranslation();
  return (
    <Badge color={STATUS_COLOR[status]} variant="light" data-testid="campaign-status">
      {t(`status.${status}`)}
    </Badge>
  );
}

export function LineBadge({ line }: { line: "formal" | "accelerated" }) {
  const { t } = useTranslation();
  return (
    <Badge color={line === "formal" ? "indigo" : "orange"} variant="outline">
      {t(`line.${line}`)}
    </Badge>
  );
}

/** The report's exploration block with the optional parts the UI shows. */
export function explorationOf(report: CampaignReport | null | undefined): ExplorationView | null {
  const ex = report?.exploration;
  if (!ex) return null;
  return ex as ExplorationView;
}
