import { Badge, Button, Drawer, Group, List, Modal, Stack, Text, Title } from "@mantine/core";
import type { TFunction } from "i18next";
import { useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import {
  api,
  asApiError,
  goalTitle,
  judgeFacts,
  judgeFindings,
  judgeScores,
  personaName,
  type ApiError,
  type Campaign,
  type ExplorationSession,
} from "../../api";
import { Conversation, roundsOf } from "../../components/Conversation";
import { NestedModal } from "../../components/nested";
import { stepId, Steps } from "../../components/Steps";
import { CodeSpans } from "../../components/CodeSpans";
import { ErrorAlert } from "../../components/ErrorAlert";
import { num, when } from "../../components/format";
import { Link } from "../../components/Link";
import {
  codeLabel,
  EndReasonBadge,
  GradeBadge,
  PlayedByBadge,
  playedByLabel,
  SessionStatusBadge,
  TriggerBadge,
} from "../../components/labels";
import { useMayChange } from "../../components/identity";
import { RatingForm } from "../../components/RatingForm";
import { useLoad } from "../../components/useLoad";
import { useEngineText } from "../../i18n/engine";
import { RegressionModal } from "./RegressionModal";

/** Who spoke the user's turns, in words. */
function userSpeaker(t: TFunction, s: ExplorationSession): string {
  const by = s.played_by;
  if (by === "person") return t("speaker.person");
  if (by === "assistant") return t("speaker.assistant");
  if (by === "builtin") return t("speaker.builtin");
  if (by === "model") return playedByLabel(t, s) ?? t("speaker.model");
  return t("speaker.user");
}

/** One exploration session: conversation at the round asked for, experience record, judge review, rating. */
export function SessionDrawer({
  campaign,
  sessionId,
  turn,
  step,
  targetName,
  onClose,
  onResume,
}: {
  campaign: Campaign;
  /** Reopens a running session in the explore window (to continue or close it with a record). */
  onResume?: (s: ExplorationSession) => void;
  sessionId: string;
  /** The round to highlight and scroll to. */
  turn: number | null;
  /** The step (1-based, of the highlighted round) to highlight and scroll to. */
  step?: number | null;
  targetName: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const tx = useEngineText();
  const transcript = useLoad(
    () => api.sessionMessages(sessionId),
    [sessionId],
    (e) => e.kind === "session_changed" && e.session_id === sessionId,
  );
  const session = transcript.data;
  const running = session?.status === "running";
  const [discarding, setDiscarding] = useState(false);
  const [modalOpen, setModalOpen] = useState(false);
  const [promoting, setPromoting] = useState<number | null>(null);
  const mayChange = useMayChange();
  const [discardError, setDiscardError] = useState<ApiError | null>(null);
  const discard = async () => {
    setDiscardError(null);
    try {
      await api.discardSession(sessionId);
      setDiscarding(false);
      transcript.reload();
    } catch (e) {
      setDiscardError(asApiError(e));
    }
  };
  const findings = session ? judgeFindings(session.judge_review) : [];
  const litStep = turn !== null && step != null ? step : null;
  /** A link to a round of this session, or to a step of it. */
  const at = (round: number, n?: number | null) => (
    <Link to={{ kind: "session", id: campaign.id, sid: sessionId, turn: round, step: n ?? null }} replace size="sm" data-testid={n ? "finding-step-link" : undefined}>
      {n ? t("ev.turnStep", { turn: num(round), step: num(n) }) : t("ev.turnN", { n: num(round) })}
    </Link>
  );
  const replyRounds = session ? roundsOf(session.messages) : [];
  const notes = new Map<number, ReactNode[]>();
  for (const f of findings) {
    const round = f.turn;
    if (round === null) continue;
    const list = notes.get(round) ?? [];
    list.push(
      <Text size="xs">
        {f.dimension ? t("ev.labelled", { label: codeLabel(t, "dimension", f.dimension) }) : ""}
        <CodeSpans text={tx(f.text)} />
      </Text>,
    );
    notes.set(round, list);
  }

  return (
    <Drawer
      opened
      onClose={onClose}
      position="right"
      size="xl"
      closeOnEscape={!modalOpen}
      trapFocus={!modalOpen}
      title={session ? `${t("session.title")}: ${personaName(session.persona)} · ${goalTitle(session.goal)}` : t("session.title")}
      data-testid="session-drawer"
    >
      <ErrorAlert error={transcript.error} />
      {!session ? (
        !transcript.error && <Text c="dimmed">{t("common.loading")}</Text>
      ) : (
        <Stack data-session-id={session.id}>
          <Group gap="xs">
            <SessionStatusBadge status={session.status} />
            <PlayedByBadge session={session} />
            <TriggerBadge trigger={session.trigger} />
            <EndReasonBadge reason={session.end_reason} />
            <Text size="xs" c="dimmed">
              {t("ev.startedAt", { at: when(session.started_at) })}
            </Text>
          </Group>
          {running && (
            <Group gap="xs">
              {onResume && (
                <Button variant="light" onClick={() => onResume(session)} data-testid="session-resume">
                  {t("explore.resume")}
                </Button>
              )}
              <Button variant="subtle" color="red" onClick={() => setDiscarding(true)} data-testid="session-discard">
                {t("explore.discard")}
              </Button>
              <Text size="xs" c="dimmed">
                {t("explore.leaseNote")}
              </Text>
            </Group>
          )}
          <Modal opened={discarding} onClose={() => setDiscarding(false)} title={t("explore.discardTitle")} centered data-testid="discard-confirm">
            <Stack gap="sm">
              <Text size="sm">{t("explore.discardBody")}</Text>
              <ErrorAlert error={discardError} />
              <Group justify="flex-end" gap="xs">
                <Button variant="default" onClick={() => setDiscarding(false)}>
                  {t("common.cancel")}
                </Button>
                <Button color="red" onClick={() => void discard()} data-testid="discard-confirm-button">
                  {t("explore.discard")}
                </Button>
              </Group>
            </Stack>
          </Modal>
          <Text size="sm" data-testid="session-turn-count">
            {t("ev.turnsOfMax", { n: num(session.turn_count), max: num(campaign.effective_budget.max_turns) })}
            {running ? ` · ${t("ev.liveNote")}` : ""}
          </Text>
          <Text size="sm">
            <b>{t("session.persona")}:</b> {personaName(session.persona)} · <b>{t("session.goal")}:</b> {goalTitle(session.goal)}
          </Text>
          {session.failure_reason && (
            <Text size="sm" c="red">
              <CodeSpans text={tx(session.failure_reason)} />
            </Text>
          )}

          <Title order={5}>{t("session.conversation")}</Title>
          {turn !== null && (
            <Text size="xs" c="dimmed" data-testid="session-focus">
              {t("ev.focusTurn", { n: num(turn) })}{" "}
              <Link to={{ kind: "session", id: campaign.id, sid: session.id, turn: null }} replace size="xs">
                {t("ev.clearFocus")}
              </Link>
            </Text>
          )}
          {session.messages.length === 0 && (
            <Text size="sm" c="dimmed">
              {t("ev.noTurns")}
            </Text>
          )}
          <NestedModal value={setModalOpen}>
            <Conversation
              testId="session-conversation"
              turns={session.messages.map((m, i) => {
                const round = replyRounds[i] ?? 0;
                const steps = m.steps ?? [];
                return {
                  key: m.seq,
                  role: m.role,
                  content: m.content,
                  latency_ms: m.latency_ms,
                  // The steps of an agent that acts (the campaign's tool
                  // environment); any reply can be flagged: the judge need
                  // not have found it.
                  extra: (
                    <>
                      {steps.length > 0 && <Steps steps={steps} turn={round} lit={round === turn ? litStep : null} testId="session-step" />}
                      {mayChange && m.role !== "user" && round > 0 && (
                        <Group justify="flex-end" mt={4}>
                          <Button variant="subtle" size="compact-xs" onClick={() => setPromoting(round)} data-testid="guard-reply">
                            {t("regression.guardReply")}
                          </Button>
                        </Group>
                      )}
                    </>
                  ),
                };
              })}
              userLabel={userSpeaker(t, session)}
              targetLabel={t("speaker.target", { name: targetName })}
              highlight={turn}
              focus={litStep !== null && turn !== null ? stepId(turn, litStep) : null}
              notes={notes}
            />
          </NestedModal>

          <Title order={5}>{t("session.experience")}</Title>
          {session.experience ? (
            <Stack gap={4} data-testid="session-experience">
              <Text size="sm">
                {t("session.goalAchieved")}: {session.experience.goal_achieved ? t("common.yes") : t("common.no")} ·{" "}
                {t("session.emotion")}: {codeLabel(t, "emotion", session.experience.emotion)}
              </Text>
              {session.experience.blockers.length > 0 && (
                <>
                  <Text size="sm" fw={500}>
                    {t("session.blockers")}
                  </Text>
                  <List size="sm">
                    {session.experience.blockers.map((b, i) => (
                      <List.Item key={i}>
                        <CodeSpans text={tx(b)} />
                      </List.Item>
                    ))}
                  </List>
                </>
              )}
              {session.experience.misled.length > 0 && (
                <>
                  <Text size="sm" fw={500}>
                    {t("session.misled")}
                  </Text>
                  <List size="sm">
                    {session.experience.misled.map((b, i) => (
                      <List.Item key={i}>
                        <CodeSpans text={tx(b)} />
                      </List.Item>
                    ))}
                  </List>
                </>
              )}
              {tx(session.experience.notes) && (
                <Text size="sm" style={{ whiteSpace: "pre-wrap" }} data-testid="session-notes">
                  {t("session.notes")}: <CodeSpans text={tx(session.experience.notes)} />
                </Text>
              )}
            </Stack>
          ) : (
            <Text size="sm" c="dimmed">
              {t("session.noExperience")}
            </Text>
          )}

          <Title order={5}>{t("session.judge")}</Title>
          {session.judge_review ? (
            <Stack gap={4} data-testid="session-judge">
              <Group gap="xs">
                {judgeFacts(session.judge_review)
                  .filter((f) => f.key !== "error")
                  .map((f) => (
                    <Badge key={f.key} variant="outline" color="gray">
                      {codeLabel(t, "judgeFact", f.key)}: {f.key === "method" ? codeLabel(t, "judgeFact", tx(f.value)) : tx(f.value)}
                    </Badge>
                  ))}
              </Group>
              {judgeFacts(session.judge_review)
                .filter((f) => f.key === "error")
                .map((f) => (
                  <Text key={f.key} size="sm" c="red" data-testid="judge-error">
                    {codeLabel(t, "judgeFact", f.key)}: <CodeSpans text={tx(f.value)} />
                  </Text>
                ))}
              {judgeScores(session.judge_review).map((d) => (
                <Group key={d.dimension} gap="xs" align="flex-start" wrap="nowrap">
                  <Badge variant="light" miw={160} style={{ flexShrink: 0 }}>
                    {codeLabel(t, "dimension", d.dimension)}: {d.score ?? "—"}
                  </Badge>
                  <Text size="sm">
                    <CodeSpans text={tx(d.evidence)} />
                  </Text>
                </Group>
              ))}
              {findings.map((f, i) => {
                const round = f.turn;
                return (
                  <Group key={i} gap={6} wrap="nowrap" align="flex-start" data-testid="session-finding">
                    <GradeBadge grade={f.grade} />
                    <Text size="sm" style={{ minWidth: 0 }}>
                      {f.dimension ? t("ev.labelled", { label: codeLabel(t, "dimension", f.dimension) }) : ""}
                      <CodeSpans text={tx(f.text)} /> {round !== null && at(round, f.step)}
                    </Text>
                    {mayChange && round !== null && (f.grade === "poor" || f.grade === "fair") && (
                      <Button
                        variant="subtle"
                        size="compact-xs"
                        style={{ flexShrink: 0 }}
                        onClick={() => setPromoting(round)}
                        data-testid="make-regression"
                      >
                        {t("regression.open")}
                      </Button>
                    )}
                  </Group>
                );
              })}
            </Stack>
          ) : (
            <Text size="sm" c="dimmed">
              {session.judge_status === "pending" ? t("session.judgePending") : t("session.noJudge")}
            </Text>
          )}

          <Title order={5}>{t("session.simulatorCheck")}</Title>
          <Stack gap={4} data-testid="session-simulator">
            {session.played_by === "person" ? (
              <Text size="sm" c="dimmed">
                {t("session.simulatorPerson")}
              </Text>
            ) : session.simulator_faults === null ? (
              <Text size="sm" c="dimmed">
                {t("session.simulatorUnchecked")}
              </Text>
            ) : session.simulator_faults.length === 0 ? (
              <Text size="sm">{t("session.simulatorClean")}</Text>
            ) : (
              <>
                {session.simulator_faults.map((f, i) => (
                  <Group key={i} gap={6} wrap="nowrap" align="flex-start" data-testid="session-fault" data-kind={f.kind}>
                    <Badge color="orange" variant="light" style={{ flexShrink: 0 }}>
                      {codeLabel(t, "faultKind", f.kind)}
                    </Badge>
                    <Text size="sm" style={{ minWidth: 0 }}>
                      {t(`session.faultText.${f.kind === "record_disagrees" ? `record_disagrees_${f.detail}` : f.kind}`, {
                        detail: f.kind === "left_language" ? codeLabel(t, "language", f.detail ?? "") : (f.detail ?? ""),
                      })}{" "}
                      {f.turn !== null && f.turn !== undefined && at(f.turn)}
                    </Text>
                  </Group>
                ))}
                <Text size="xs" c="dimmed">
                  {t("session.simulatorApart")}
                </Text>
              </>
            )}
          </Stack>

          <RatingForm kind="session" subjectId={session.id} testPrefix="session" />
        </Stack>
      )}
      {promoting !== null && session && <RegressionModal sessionId={session.id} turn={promoting} onClose={() => setPromoting(null)} />}
    </Drawer>
  );
}
