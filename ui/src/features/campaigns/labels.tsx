import { Badge } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { CampaignReport, CampaignStatus, ExplorationFindings, Verdict } from "../../api";

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

/** The report's exploration block; null when the campaign has none. */
export function explorationOf(report: CampaignReport | null | undefined): ExplorationFindings | null {
  return report?.exploration ?? null;
}

const VERDICT_COLOR: Record<Verdict, string> = { passed: "teal", failed: "red", error: "gray", skipped: "yellow" };

export function VerdictBadge({ verdict, status }: { verdict: Verdict | null; status: string }) {
  const { t } = useTranslation();
  if (!verdict) {
    return (
      <Badge color="blue" variant="outline">
        {t(`run.${status === "running" ? "running" : "pending"}`)}
      </Badge>
    );
  }
  return (
    <Badge color={VERDICT_COLOR[verdict]} variant="light">
      {t(`run.${verdict}`)}
    </Badge>
  );
}

/** The emotions an experience record may carry (the engine's allow-list). */
export const EMOTIONS = ["satisfied", "delighted", "neutral", "confused", "anxious", "frustrated", "angry"] as const;
