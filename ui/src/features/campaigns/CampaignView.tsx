import { Badge, Button, Group, Menu, Modal, Stack, Text, Title } from "@mantine/core";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type ExplorationSession, type ExportFormat, type ScenarioSummary } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useMayChange } from "../../components/identity";
import { useUiLanguage } from "../../i18n/engine";
import { num, when } from "../../components/format";
import { Link } from "../../components/Link";
import { WhyDisabled } from "../../components/WhyDisabled";
import { useLoad } from "../../components/useLoad";
import { leave, navigate, type CampaignQuery, type Route } from "../../routing";
import { BlindReview } from "./BlindReview";
import { ExploreModal } from "./ExploreModal";
import { LineBadge, StatusBadge, explorationOf } from "./labels";
import { NextPeriodModal } from "./NextPeriodModal";
import { ReportDrawer } from "./ReportDrawer";
import { RunDrawer } from "./RunDrawer";
import { RunsCard } from "./RunsCard";
import { SessionDrawer } from "./SessionDrawer";
import { SessionsCard } from "./SessionsCard";

const FORMATS: { format: ExportFormat; label: string; ext: string }[] = [
  { format: "md", label: "export.md", ext: "md" },
  { format: "json", label: "export.json", ext: "json" },
  { format: "csv", label: "export.csv", ext: "csv" },
  { format: "sessions_csv", label: "export.sessionsCsv", ext: "csv" },
  { format: "junit", label: "export.junit", ext: "xml" },
];

async function loadCampaign(id: string) {
  const [report, targets, scenarios] = await Promise.all([
    api.campaignReport(id),
    api.listTargets(),
    api.listScenarios().catch(() => [] as ScenarioSummary[]),
  ]);
  return { report, targets, scenarios };
}

type CampaignRoute = Extract<Route, { kind: "campaign" | "report" | "session" | "run" | "blind" }>;

/** A campaign: header, runs and sessions; the report, a session or a run open over it by URL. */
export function CampaignView({ id, route }: { id: string; route: CampaignRoute }) {
  const { t } = useTranslation();
  const lang = useUiLanguage();
  // A finalized or cancelled campaign no longer changes: it stops listening.
  const [settled, setSettled] = useState(false);
  const { data, error, reload } = useLoad(() => loadCampaign(id), [id], !settled && ((e) => e.campaign_id === id));
  const [exploring, setExploring] = useState(false);
  const [resuming, setResuming] = useState<ExplorationSession | null>(null);
  const [confirmFinalize, setConfirmFinalize] = useState(false);
  const [confirmNext, setConfirmNext] = useState(false);
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const mayChange = useMayChange();
  const status = data?.report.campaign.status;
  useEffect(() => {
    setSettled(status === "finalized" || status === "cancelled");
  }, [status]);
  const campaignRoute: Route = { kind: "campaign", id, query: {} };
  // A drawer's URL does not carry the tables' filters and pages: the tables
  // behind it keep the last ones, rather than loading their first page again.
  const [tablesQuery, setTablesQuery] = useState<CampaignQuery>(route.kind === "campaign" ? route.query : {});
  if (route.kind === "campaign" && route.query !== tablesQuery) setTablesQuery(route.query);

  if (!data) {
    return (
      <Stack>
        <Link to={{ kind: "campaigns" }} size="sm">
          {t("ev.backToList")}
        </Link>
        <ErrorAlert error={error} />
        {!error && <Text c="dimmed">{t("common.loading")}</Text>}
      </Stack>
    );
  }
  const { report, targets, scenarios } = data;
  const c = report.campaign;
  const live = !(c.status === "finalized" || c.status === "cancelled");
  const open = c.status === "running" || c.status === "scheduled";
  const targetName = targets.find((x) => x.id === c.target_id)?.name ?? c.target_id;
  const query = tablesQuery;

  const finalize = async () => {
    setConfirmFinalize(false);
    try {
      await api.finalizeCampaign(c.id);
      reload();
    } catch (e) {
      setActionError(asApiError(e));
    }
  };

  const exportAs = async (format: ExportFormat, ext: string) => {
    setNotice(null);
    try {
      const safe = c.name.replace(/[^\p{L}\p{N}._-]+/gu, "-").slice(0, 60) || "campaign";
      if (await api.saveExport(c.id, format, `${safe}${format === "sessions_csv" ? "-sessions" : ""}.${ext}`, lang)) setNotice(t("view.exported"));
    } catch (e) {
      setActionError(asApiError(e));
    }
  };

  return (
    <Stack>
      <Link to={{ kind: "campaigns" }} size="sm" data-testid="back-to-list">
        {t("ev.backToList")}
      </Link>
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <Stack gap={4} style={{ flex: "1 1 320px", minWidth: 0 }}>
          <Title order={2} data-testid="campaign-title" style={{ overflowWrap: "anywhere" }}>
            {c.name}
          </Title>
          <Group gap="xs">
            <StatusBadge status={c.status} />
            <LineBadge line={c.line} />
            {(c.time_scale ?? 1) > 1 && <Badge variant="default">{t("view.timeScale", { scale: num(c.time_scale) })}</Badge>}
            <Text size="sm" c="dimmed">
              {targetName} · {t("view.window", { start: when(c.window_start), end: when(c.window_end) })}
            </Text>
          </Group>
        </Stack>
        <Group gap="xs">
          <Button onClick={() => navigate({ kind: "report", id, tab: "scores" })} data-testid="open-report">
            {t("view.report")}
          </Button>
          {mayChange && (
            <WhyDisabled reason={report.judge_calibration ? null : t("view.blindDisabled")} testId="blind-disabled-reason">
              <Button
                variant="light"
                disabled={!report.judge_calibration}
                onClick={() => navigate({ kind: "blind", id })}
                data-testid="open-blind-review"
              >
                {t("blind.open")}
              </Button>
            </WhyDisabled>
          )}
          {mayChange && (
            <WhyDisabled reason={open ? null : t(c.status === "draft" ? "view.exploreDraft" : "view.exploreClosed")} testId="explore-disabled-reason">
              <Button variant="light" disabled={!open} onClick={() => setExploring(true)} data-testid="open-explore">
                {t("view.explore")}
              </Button>
            </WhyDisabled>
          )}
          <Menu>
            <Menu.Target>
              <Button variant="default" data-testid="export-menu">
                {t("view.export")}
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              {FORMATS.map((f) => (
                <Menu.Item key={f.format} onClick={() => void exportAs(f.format, f.ext)} data-testid={`export-${f.format}`}>
                  {t(f.label)}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
          {mayChange &&
            (open ? (
              <Button color="red" variant="outline" onClick={() => setConfirmFinalize(true)} data-testid="finalize">
                {t("view.finalize")}
              </Button>
            ) : (
              <Button variant="default" onClick={() => setConfirmNext(true)} data-testid="next-period">
                {t("view.nextPeriod")}
              </Button>
            ))}
        </Group>
      </Group>
      <ErrorAlert error={error ?? actionError} onClose={() => setActionError(null)} />
      {notice && (
        <Text c="green" size="sm" data-testid="notice">
          {notice}
        </Text>
      )}

      <RunsCard campaign={c} fixed={report.fixed} scenarios={scenarios} query={query} live={live} />
      <SessionsCard campaign={c} query={query} live={live} started={explorationOf(report)?.sessions_total ?? null} />

      {route.kind === "report" && (
        <ReportDrawer
          report={report}
          scenarios={scenarios}
          route={route}
          live={live}
          onClose={() => leave(campaignRoute)}
          onChanged={reload}
        />
      )}
      {route.kind === "run" && (
        <RunDrawer
          campaignId={id}
          runId={route.rid}
          turn={route.turn}
          step={route.step}
          scenarios={scenarios}
          onClose={() => leave(campaignRoute)}
        />
      )}
      {route.kind === "blind" && (
        <BlindReview
          campaignId={id}
          targetName={targetName}
          onLabelled={reload}
          onClose={() => leave(campaignRoute)}
        />
      )}
      {route.kind === "session" && (
        <SessionDrawer
          campaign={c}
          sessionId={route.sid}
          turn={route.turn}
          step={route.step}
          targetName={targetName}
          onClose={() => leave(campaignRoute)}
          onResume={open && mayChange ? setResuming : undefined}
        />
      )}
      {resuming && (
        <ExploreModal
          campaign={c}
          resume={resuming}
          onClose={() => {
            setResuming(null);
            reload();
          }}
        />
      )}
      {exploring && (
        <ExploreModal
          campaign={c}
          coverage={explorationOf(report)?.coverage ?? null}
          onClose={() => {
            setExploring(false);
            reload();
          }}
        />
      )}
      {confirmNext && (
        <NextPeriodModal
          campaign={c}
          onClose={() => setConfirmNext(false)}
          onStarted={(next) => {
            setConfirmNext(false);
            navigate({ kind: "campaign", id: next.id, query: {} });
          }}
        />
      )}
      <Modal opened={confirmFinalize} onClose={() => setConfirmFinalize(false)} title={t("view.finalize")} centered>
        <Text size="sm">{t("view.finalizeConfirm")}</Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setConfirmFinalize(false)}>
            {t("common.cancel")}
          </Button>
          <Button color="red" onClick={() => void finalize()} data-testid="finalize-confirm">
            {t("view.finalize")}
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
