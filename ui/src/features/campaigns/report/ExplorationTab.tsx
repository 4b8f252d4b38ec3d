import { Badge, Button, Group, Pagination, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, type CampaignReport } from "../../../api";
import { num, pct } from "../../../components/format";
import { Link } from "../../../components/Link";
import { codeLabel, GradeBadge, IssueKindBadge } from "../../../components/labels";
import { useLoad } from "../../../components/useLoad";
import { navigate } from "../../../routing";
import { explorationOf } from "../labels";
import { SessionTable } from "../SessionTable";
import { CalibrationBadge, CalibrationSection } from "./CalibrationSection";
import { CoverageGrid } from "./CoverageGrid";
import { EvidenceSessions } from "./EvidenceSessions";
import { issueKey, issueTexts } from "./evidence";
import { useEvidenceNames } from "./names";
import { Stat } from "./Stat";
import { useEngineText, useUiLanguage } from "../../../i18n/engine";
import { CodeSpans } from "../../../components/CodeSpans";

const FINDINGS_SHOWN = 15;
const SESSIONS_PAGE = 20;

/** Exploration findings: issues, judge findings, coverage and sessions, each leading to its evidence. */
export function ExplorationTab({
  report,
  issue,
  cell,
  live,
}: {
  report: CampaignReport;
  issue: string | null;
  cell: string | null;
  live: boolean;
}) {
  const { t } = useTranslation();
  const tx = useEngineText();
  const lang = useUiLanguage();
  const ex = explorationOf(report);
  const c = report.campaign;
  const names = useEvidenceNames(report.evidence);
  const [allFindings, setAllFindings] = useState(false);
  const [page, setPage] = useState(1);
  const sessions = useLoad(
    () => api.searchSessions(c.id, { offset: (page - 1) * SESSIONS_PAGE, limit: SESSIONS_PAGE }),
    [c.id, page],
    live && ((e) => e.campaign_id === c.id && e.kind === "session_changed"),
  );
  if (!ex) {
    return (
      <Text c="dimmed" data-testid="no-exploration">
        {t("report.noExploration")}
      </Text>
    );
  }
  const judges = ex.judge_models;
  const modes = Object.entries(report.models?.output_modes ?? {}).flatMap(([role, mode]) => (typeof mode === "string" ? [[role, mode] as const] : []));
  const sessionTotal = sessions.data?.total ?? 0;
  const findings = allFindings ? ex.findings : ex.findings.slice(0, FINDINGS_SHOWN);
  const trajectory = Object.entries(ex.trajectory_kinds ?? {});

  return (
    <Stack data-testid="exploration-findings">
      <SimpleGrid cols={3}>
        <Stat label={t("report.achievement")} value={pct(ex.goal_achievement_rate)} testId="report-achievement" />
        <Stat label={t("view.sessions")} value={num(ex.sessions_total)} />
        <Stat label={t("report.simulatorFaults")} value={num(ex.simulator_faults)} />
      </SimpleGrid>
      <Group gap="xs" data-testid="simulator-fault-kinds">
        <Text size="sm">{t("report.faultKinds")}</Text>
        {Object.entries(ex.simulator_fault_kinds).map(([kind, c]) => (
          <Badge key={kind} variant={c.sessions > 0 ? "light" : "outline"} color={c.sessions > 0 ? "orange" : "gray"} data-kind={kind}>
            {t("ev.timesN", { what: codeLabel(t, "faultKind", kind), n: num(c.sessions) })}
          </Badge>
        ))}
      </Group>
      {trajectory.length > 0 && (
        <Group gap="xs" data-testid="trajectory-kinds">
          <Text size="sm">{t("report.trajectoryKinds")}</Text>
          {trajectory.map(([kind, n]) => (
            <Badge key={kind} variant="light" color="red" data-kind={kind}>
              {t("ev.timesN", { what: codeLabel(t, "trajectoryKind", kind), n: num(n.sessions) })}
            </Badge>
          ))}
        </Group>
      )}
      <Group gap="xs" data-testid="end-reasons">
        {Object.entries(ex.sessions_by_end_reason).map(([reason, n]) => (
          <Badge key={reason} variant="light" color="grape">
            {t("ev.timesN", { what: codeLabel(t, "endReason", reason), n: num(n) })}
          </Badge>
        ))}
        {Object.entries(ex.sessions_by_trigger).map(([trigger, n]) => (
          <Badge key={trigger} variant="outline" color="gray">
            {t("ev.timesN", { what: t("labels.triggerBy", { trigger: codeLabel(t, "trigger", trigger) }), n: num(n) })}
          </Badge>
        ))}
        {Object.entries(ex.emotions).map(([emotion, n]) => (
          <Badge key={emotion} variant="outline">
            {t("ev.timesN", { what: codeLabel(t, "emotion", emotion), n: num(n) })}
          </Badge>
        ))}
      </Group>

      <Text fw={600}>{t("report.issues")}</Text>
      {ex.issues.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t("report.noIssues")}
        </Text>
      ) : (
        <Table highlightOnHover data-testid="issue-list">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("ev.kind")}</Table.Th>
              <Table.Th>{t("ev.issue")}</Table.Th>
              <Table.Th>{t("report.sessionList")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {ex.issues.map((i) => {
              const key = issueKey(i);
              const open = () => navigate({ kind: "report", id: c.id, tab: "exploration", issue: key });
              return (
                <Table.Tr key={`${i.kind}:${key}`} style={{ cursor: "pointer" }} onClick={open} data-testid="issue-row">
                  <Table.Td w={110}>
                    <IssueKindBadge kind={i.kind} />
                  </Table.Td>
                  <Table.Td>
                    {issueTexts(i, lang).map((x) => (
                      <Text key={x} size="sm">
                        <CodeSpans text={x} />
                      </Text>
                    ))}
                  </Table.Td>
                  <Table.Td w={150}>
                    <Link to={{ kind: "report", id: c.id, tab: "exploration", issue: key }} size="sm" data-testid="issue-open">
                      {t("ev.inSessions", { count: i.count, n: num(i.count) })}
                    </Link>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}

      <Group gap="xs" justify="space-between">
        <Text fw={600}>{t("session.judge")}</Text>
        {judges.length > 0 && (
          <Text size="xs" c="dimmed" data-testid="judge-models">
            {t("ev.judgedBy", { models: judges.map((m) => (m === "heuristic" ? t("ev.heuristicJudge") : m)).join(", ") })}
          </Text>
        )}
        {modes.length > 0 && (
          <Text size="xs" c="dimmed" data-testid="output-modes">
            {t("ev.outputModes", { modes: modes.map(([role, mode]) => t("ev.outputModeOf", { role: codeLabel(t, "role", role), mode: codeLabel(t, "outputMode", mode) })).join(" · ") })}
          </Text>
        )}
      </Group>
      <Text size="sm" c="dimmed" data-testid="judge-status">
        {ex.judge.reviewed + ex.judge.pending + ex.judge.failed === 0
          ? t("ev.judgeNone")
          : t("ev.judgeStatus", { count: ex.judge.reviewed, n: num(ex.judge.reviewed), pending: num(ex.judge.pending), failed: num(ex.judge.failed) })}
      </Text>
      {Object.keys(ex.judge.dimensions).length > 0 && (
        <Group gap="xs">
          {Object.entries(ex.judge.dimensions).map(([dim, d]) => (
            <Group key={dim} gap={4} wrap="nowrap" data-testid={`judge-dimension-${dim}`}>
              <Badge variant="light">
                {t("ev.dimensionAverage", { dimension: codeLabel(t, "dimension", dim), avg: num(d.average, 1), n: num(d.count) })}
              </Badge>
              <CalibrationBadge calibrated={report.judge_calibration?.criteria.some((k) => k.criterion === dim && k.calibrated) ?? false} />
            </Group>
          ))}
        </Group>
      )}
      {report.judge_calibration && <CalibrationSection calibration={report.judge_calibration} campaignId={c.id} />}
      {ex.findings.length > 0 && (
        <Stack gap={6} data-testid="judge-findings">
          <Text fw={600} mt="sm" data-testid="judge-findings-title">
            {t("report.judgeFindings")}
          </Text>
          {findings.map((f, i) => (
            // The finding takes the width; its evidence link keeps at most a third and wraps in it.
            <Group key={i} gap="sm" wrap="nowrap" align="flex-start" data-testid="judge-finding">
              <GradeBadge grade={f.severity} />
              <Text size="sm" style={{ minWidth: 0, flex: "1 1 auto" }} data-testid="judge-finding-text">
                {f.dimension ? t("ev.labelled", { label: codeLabel(t, "dimension", f.dimension) }) : ""}
                <CodeSpans text={tx(f.text)} />
              </Text>
              <Link
                to={{ kind: "session", id: c.id, sid: f.session_id, turn: f.turn, step: f.step }}
                size="sm"
                style={{ flex: "0 1 auto", maxWidth: "33%", textAlign: "right" }}
                data-testid="finding-link"
              >
                {names.session(f.session_id, f.turn, f.step)}
              </Link>
            </Group>
          ))}
          {ex.findings.length > FINDINGS_SHOWN && (
            <Button variant="subtle" size="xs" w="fit-content" onClick={() => setAllFindings((v) => !v)}>
              {allFindings ? t("ev.showFewer") : t("ev.showAll", { n: num(ex.findings.length) })}
            </Button>
          )}
        </Stack>
      )}

      {ex.coverage.cells.length > 0 && (
        <>
          <Text fw={600}>{t("report.coverage")}</Text>
          <CoverageGrid grid={ex.coverage} campaign={c} />
          {ex.coverage.unseeded_sessions > 0 && (
            <Text size="xs" c="dimmed">
              {t("ev.unseeded", { count: ex.coverage.unseeded_sessions, n: num(ex.coverage.unseeded_sessions) })}
            </Text>
          )}
        </>
      )}

      <Text fw={600}>{t("report.sessionList")}</Text>
      <SessionTable campaignId={c.id} sessions={sessions.data?.sessions ?? []} testId="report-session-row" />
      {sessionTotal > SESSIONS_PAGE && (
        <Pagination total={Math.ceil(sessionTotal / SESSIONS_PAGE)} value={page} onChange={setPage} />
      )}
      {(issue || cell) && <EvidenceSessions campaign={c} findings={ex} issue={issue} cell={cell} />}
    </Stack>
  );
}
