import { Anchor, Badge, Button, Card, Group, Menu, Modal, Progress, ScrollArea, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, goalTitle, personaName, type ApiError, type ExplorationSession, type ExportFormat, type Run, type ScenarioSummary } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { pct, when } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { ExploreModal } from "./ExploreModal";
import { LineBadge, StatusBadge, VerdictBadge } from "./labels";
import { RunDrawer } from "./RunDrawer";
import { ReportDrawer } from "./ReportDrawer";
import { SessionDrawer } from "./SessionDrawer";

const FORMATS: { format: ExportFormat; label: string; ext: string }[] = [
  { format: "md", label: "Markdown", ext: "md" },
  { format: "json", label: "JSON", ext: "json" },
  { format: "csv", label: "CSV (runs)", ext: "csv" },
  { format: "sessions_csv", label: "CSV (sessions)", ext: "csv" },
  { format: "junit", label: "JUnit XML", ext: "xml" },
];

async function loadAll(id: string) {
  const [report, sessions, targets, runs, scenarios] = await Promise.all([
    api.campaignReport(id),
    api.listSessions(id).catch(() => [] as ExplorationSession[]),
    api.listTargets(),
    api.listRuns(id).catch(() => [] as Run[]),
    api.listScenarios().catch(() => [] as ScenarioSummary[]),
  ]);
  return { report, sessions, targets, runs, scenarios };
}

export function CampaignView({ id, onBack, onOpen }: { id: string; onBack: () => void; onOpen: (id: string) => void }) {
  const { t } = useTranslation();
  const { data, error, reload } = useLoad(() => loadAll(id), [id], true);
  const [reportOpen, setReportOpen] = useState(false);
  const [exploring, setExploring] = useState(false);
  const [confirmFinalize, setConfirmFinalize] = useState(false);
  const [session, setSession] = useState<ExplorationSession | null>(null);
  const [run, setRun] = useState<Run | null>(null);
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  if (!data) {
    return (
      <Stack>
        <Anchor onClick={onBack}>← {t("common.back")}</Anchor>
        <ErrorAlert error={error} />
        {!error && <Text c="dimmed">{t("common.loading")}</Text>}
      </Stack>
    );
  }
  const { report, sessions, targets, runs, scenarios } = data;
  const scenarioTitle = (sid: string) => scenarios.find((x) => x.id === sid)?.title ?? sid;
  const c = report.campaign;
  const fixed = report.fixed;
  const open = c.status === "running" || c.status === "scheduled";
  const targetName = targets.find((x) => x.id === c.target_id)?.name ?? c.target_id;
  const budget = c.effective_budget;

  const finalize = async () => {
    setConfirmFinalize(false);
    try {
      await api.finalizeCampaign(c.id);
      reload();
    } catch (e) {
      setActionError(asApiError(e));
    }
  };

  const nextPeriod = async () => {
    try {
      onOpen((await api.nextPeriod(c.id)).id);
    } catch (e) {
      setActionError(asApiError(e));
    }
  };

  const exportAs = async (format: ExportFormat, ext: string) => {
    setNotice(null);
    try {
      const safe = c.name.replace(/[^\p{L}\p{N}._-]+/gu, "-").slice(0, 60) || "campaign";
      if (await api.saveExport(c.id, format, `${safe}${format === "sessions_csv" ? "-sessions" : ""}.${ext}`)) setNotice(t("view.exported"));
    } catch (e) {
      setActionError(asApiError(e));
    }
  };

  return (
    <Stack>
      <Anchor onClick={onBack} size="sm">
        ← {t("common.back")}
      </Anchor>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={2} data-testid="campaign-title">
            {c.name}
          </Title>
          <Group gap="xs">
            <StatusBadge status={c.status} />
            <LineBadge line={c.line} />
            {(c.time_scale ?? 1) > 1 && <Badge variant="default">{t("view.timeScale", { scale: c.time_scale })}</Badge>}
            <Text size="sm" c="dimmed">
              {targetName} · {t("view.window", { start: when(c.window_start), end: when(c.window_end) })}
            </Text>
          </Group>
        </Stack>
        <Group gap="xs">
          <Button onClick={() => setReportOpen(true)} data-testid="open-report">
            {t("view.report")}
          </Button>
          <Button variant="light" disabled={!open} onClick={() => setExploring(true)} data-testid="open-explore">
            {t("view.explore")}
          </Button>
          <Menu>
            <Menu.Target>
              <Button variant="default" data-testid="export-menu">
                {t("view.export")}
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              {FORMATS.map((f) => (
                <Menu.Item key={f.format} onClick={() => void exportAs(f.format, f.ext)} data-testid={`export-${f.format}`}>
                  {f.label}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
          {open ? (
            <Button color="red" variant="outline" onClick={() => setConfirmFinalize(true)} data-testid="finalize">
              {t("view.finalize")}
            </Button>
          ) : (
            <Button variant="default" onClick={() => void nextPeriod()} data-testid="next-period">
              {t("view.nextPeriod")}
            </Button>
          )}
        </Group>
      </Group>
      <ErrorAlert error={error ?? actionError} onClose={() => setActionError(null)} />
      {notice && (
        <Text c="green" size="sm" data-testid="notice">
          {notice}
        </Text>
      )}

      <Stack>
        <Card withBorder data-testid="runs-card">
          <Title order={4}>{t("view.runs")}</Title>
          <Progress
            mt="sm"
            size="lg"
            value={fixed.runs_planned ? (100 * fixed.runs_finished) / fixed.runs_planned : 0}
            animated={c.status === "running" && fixed.runs_finished < fixed.runs_planned}
            data-testid="runs-progress"
          />
          <Text size="sm" mt={4} data-testid="runs-progress-text">
            {t("view.runsProgress", { done: fixed.runs_finished, planned: fixed.runs_planned })}
          </Text>
          <Group mt="sm" gap="xs">
            <Badge color="teal">
              {t("view.passed")} {fixed.passed}
            </Badge>
            <Badge color="red">
              {t("view.failed")} {fixed.failed}
            </Badge>
            <Badge color="gray">
              {t("view.errors")} {fixed.errors}
            </Badge>
            <Badge variant="outline">
              {t("campaigns.passRate")} {pct(fixed.pass_rate)}
            </Badge>
          </Group>
          {runs.length === 0 ? (
            <Text size="sm" c="dimmed" mt="sm">
              {t("run.noRuns")}
            </Text>
          ) : (
            <ScrollArea.Autosize mah={360} mt="sm">
              <Table highlightOnHover data-testid="runs-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t("run.scenario")}</Table.Th>
                    <Table.Th>{t("run.verdict")}</Table.Th>
                    <Table.Th>{t("run.latency")}</Table.Th>
                    <Table.Th>{t("run.scheduled")}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {runs.map((r) => (
                    <Table.Tr key={r.id} style={{ cursor: "pointer" }} onClick={() => setRun(r)} data-testid="run-row">
                      <Table.Td>
                        <Text size="sm">{scenarioTitle(r.scenario_id)}</Text>
                      </Table.Td>
                      <Table.Td w={120}>
                        <VerdictBadge verdict={r.verdict} status={r.status} />
                      </Table.Td>
                      <Table.Td>
                        <Text size="xs">{r.metrics ? `${r.metrics.latency_ms_max} ms` : ""}</Text>
                      </Table.Td>
                      <Table.Td>
                        <Text size="xs" c="dimmed">
                          {when(r.scheduled_at)}
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea.Autosize>
          )}
        </Card>
        <Card withBorder data-testid="sessions-card">
          <Title order={4}>{t("view.sessions")}</Title>
          <Text size="xs" c="dimmed">
            {t("view.budget")}: {sessions.length}/{budget.max_sessions} · {budget.max_turns} turns · {budget.min_interval_minutes} min ·{" "}
            {t("view.seedSet")}: {c.seed_set.personas?.length ?? 0}×{c.seed_set.goals?.length ?? 0}
          </Text>
          {sessions.length === 0 ? (
            <Text size="sm" c="dimmed" mt="sm">
              {t("view.noSessions")}
            </Text>
          ) : (
            <Table highlightOnHover mt="xs">
              <Table.Tbody>
                {sessions.map((s) => (
                  <Table.Tr key={s.id} style={{ cursor: "pointer" }} onClick={() => setSession(s)} data-testid="session-row">
                    <Table.Td>{personaName(s.persona)}</Table.Td>
                    <Table.Td>{goalTitle(s.goal)}</Table.Td>
                    <Table.Td>
                      <Badge size="sm">{s.status}</Badge>
                    </Table.Td>
                    <Table.Td>{s.turn_count}</Table.Td>
                    <Table.Td>{s.end_reason ?? ""}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Card>
      </Stack>

      {reportOpen && (
        <ReportDrawer report={report} sessions={sessions} scenarios={scenarios} onClose={() => setReportOpen(false)} onOpenSession={setSession} onChanged={reload} />
      )}
      {run && <RunDrawer run={run} title={scenarioTitle(run.scenario_id)} onClose={() => setRun(null)} />}
      {session && <SessionDrawer session={session} onClose={() => setSession(null)} />}
      {exploring && (
        <ExploreModal
          campaign={c}
          onClose={() => {
            setExploring(false);
            reload();
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
