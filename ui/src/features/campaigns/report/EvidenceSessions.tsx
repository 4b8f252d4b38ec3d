import { Button, Modal, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, type Campaign, type ExplorationFindings, type SessionQuery } from "../../../api";
import { ErrorAlert } from "../../../components/ErrorAlert";
import { num } from "../../../components/format";
import { useMayChange } from "../../../components/identity";
import { IssueKindBadge } from "../../../components/labels";
import { useLoad } from "../../../components/useLoad";
import { leave } from "../../../routing";
import { RegressionModal } from "../RegressionModal";
import { SessionTable } from "../SessionTable";
import { seedNames } from "./CoverageGrid";
import { issueKey, issueTexts, turnForIssue } from "./evidence";
import { useUiLanguage } from "../../../i18n/engine";
import { CodeSpans } from "../../../components/CodeSpans";

/**
 * The sessions behind an issue (its `session_ids`) or behind a coverage
 * cell, each opening at the round the judge points at.
 */
export function EvidenceSessions({
  campaign,
  findings,
  issue: issueParam,
  cell,
}: {
  campaign: Campaign;
  findings: ExplorationFindings;
  issue: string | null;
  cell: string | null;
}) {
  const { t } = useTranslation();
  const mayChange = useMayChange();
  const [promoting, setPromoting] = useState<{ sid: string; turn: number | null } | null>(null);
  const issue = issueParam ? findings.issues.find((i) => issueKey(i) === issueParam || i.text === issueParam) : undefined;
  const [personaId, goalId] = cell ? cell.split("|") : [];
  const lang = useUiLanguage();
  const texts = issue ? issueTexts(issue, lang) : [];
  // The round an issue points at is found by its theme, read in English.
  const themeTexts = issue ? [...issueTexts(issue, "en"), ...issue.texts] : [];
  const query: SessionQuery | null = issue
    ? { ids: issue.session_ids, limit: 500 }
    : personaId && goalId
      ? { persona_id: personaId, goal_id: goalId, limit: 500 }
      : null;
  const sessions = useLoad(
    async () => (query ? (await api.searchSessions(campaign.id, query)).sessions : []),
    [campaign.id, issueParam, cell],
  );
  const close = () => leave({ kind: "report", id: campaign.id, tab: "exploration" });
  const names = seedNames(findings.coverage, campaign);
  const title = issue
    ? t("ev.issueSessionsTitle", { n: num(issue.count) })
    : personaId && goalId
      ? t("ev.cellSessionsTitle", { persona: names.persona(personaId), goal: names.goal(goalId) })
      : t("ev.unknownIssue");

  return (
    <Modal opened onClose={close} title={title} size="80%" data-testid="evidence-sessions">
      <Stack data-testid="evidence-sessions-body">
        {issue && (
          <Stack gap={4} data-testid="issue-phrasings">
            <IssueKindBadge kind={issue.kind} />
            {texts.map((x) => (
              <Text key={x} size="sm" fw={500}>
                <CodeSpans text={x} />
              </Text>
            ))}
            {issue.count > issue.session_ids.length && (
              <Text size="xs" c="dimmed">
                {t("ev.firstSessionsListed", { shown: num(issue.session_ids.length), n: num(issue.count) })}
              </Text>
            )}
          </Stack>
        )}
        {!issue && issueParam && <Text c="dimmed">{t("ev.unknownIssue")}</Text>}
        <ErrorAlert error={sessions.error} />
        {sessions.loading && !sessions.data && <Text c="dimmed">{t("common.loading")}</Text>}
        {sessions.data && (
          <SessionTable
            campaignId={campaign.id}
            sessions={sessions.data}
            testId="evidence-session-row"
            linkOf={(s) => turnForIssue(findings.findings, s.id, themeTexts) ?? { turn: null }}
            action={
              issue && mayChange
                ? (s, link) => (
                    // At the turn the issue points at, else the session's last
                    // reply, which the user reported the issue after.
                    <Button
                      variant="subtle"
                      size="compact-xs"
                      onClick={() => setPromoting({ sid: s.id, turn: link.turn ?? (s.turn_count > 0 ? s.turn_count : null) })}
                      data-testid="issue-make-regression"
                      title={t("regression.open")}
                      // The theme lets button labels wrap; this short one keeps to one line.
                      styles={{ label: { whiteSpace: "nowrap" } }}
                    >
                      {t("regression.short")}
                    </Button>
                  )
                : undefined
            }
          />
        )}
      </Stack>
      {promoting && <RegressionModal sessionId={promoting.sid} turn={promoting.turn} onClose={() => setPromoting(null)} />}
    </Modal>
  );
}
