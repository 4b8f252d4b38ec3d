import { Badge, Button, Card, Group, List, Modal, ScrollArea, Select, Stack, Text, TextInput, Textarea } from "@mantine/core";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, goalTitle, personaName, type ApiError, type Campaign, type ExplorationSession, type Value } from "../../api";
import { codeLabel } from "../../components/labels";
import { EMOTIONS } from "./labels";
import { RefusalAlert } from "./refusal";

type Line = { role: "user" | "target"; content: string };

/** How a person may end a session (never as a simulator error: a person is not a simulator). */
const PERSON_ENDINGS = ["stopped", "user_goal_met", "user_gave_up"] as const;
type PersonEnding = (typeof PERSON_ENDINGS)[number];

function field(v: Value, key: string): Value | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v[key] : undefined;
}

function textOf(v: Value | undefined): string {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : "";
}

/**
 * A seed's value as a person reads it: text and numbers as they are, a
 * fact `{value, source}` as its value with where it comes from, a list
 * joined, any other object as `key: value` pairs.
 */
export function valueText(v: Value | undefined): string {
  if (v === undefined || v === null) return "";
  if (typeof v !== "object") return String(v);
  if (Array.isArray(v)) return v.map(valueText).filter(Boolean).join(", ");
  if ("value" in v) {
    const source = valueText(v.source);
    return source ? `${valueText(v.value)} (${source})` : valueText(v.value);
  }
  return Object.entries(v)
    .map(([k, x]) => `${k}: ${valueText(x)}`)
    .join(" · ");
}

/** Who the person plays and what they want, with the facts they may give. */
export function SeedSummary({ persona, goal }: { persona: Value; goal: Value }) {
  const { t } = useTranslation();
  const description = textOf(field(persona, "description"));
  const traits = field(persona, "traits");
  const style = valueText(field(persona, "style"));
  const goalDescription = textOf(field(goal, "description"));
  const slots = field(goal, "slots");
  return (
    <Card withBorder padding="xs" data-testid="seed-summary">
      <Text size="sm">
        <b>{t("session.persona")}:</b> <span data-testid="summary-persona">{personaName(persona)}</span>
        {Array.isArray(traits) && traits.length > 0 ? ` · ${traits.map(valueText).join(", ")}` : ""}
      </Text>
      {style && (
        <Text size="xs" data-testid="summary-style">
          {t("explore.style")}: {style}
        </Text>
      )}
      {description && (
        <Text size="xs" c="dimmed">
          {description}
        </Text>
      )}
      <Text size="sm" mt={4}>
        <b>{t("session.goal")}:</b> <span data-testid="summary-goal">{goalTitle(goal)}</span>
      </Text>
      {goalDescription && (
        <Text size="xs" c="dimmed">
          {goalDescription}
        </Text>
      )}
      {slots !== null && typeof slots === "object" && !Array.isArray(slots) && Object.keys(slots).length > 0 && (
        <Text size="xs" mt={2}>
          {t("explore.facts")}: {Object.entries(slots).map(([k, v]) => `${k} = ${valueText(v)}`).join(" · ")}
        </Text>
      )}
    </Card>
  );
}

/** Picks a seed (or an ad-hoc persona and goal) and starts a session a person plays. */
export function ManualStart({ campaign, onStarted }: { campaign: Campaign; onStarted: (s: ExplorationSession) => void }) {
  const { t } = useTranslation();
  const personas = campaign.seed_set.personas ?? [];
  const goals = campaign.seed_set.goals ?? [];
  const hasSeeds = personas.length > 0 && goals.length > 0;
  const [personaId, setPersonaId] = useState<string | null>(personas[0]?.id ?? null);
  const [goalId, setGoalId] = useState<string | null>(goals[0]?.id ?? null);
  const [adHocPersona, setAdHocPersona] = useState("");
  const [adHocGoal, setAdHocGoal] = useState("");
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      const persona = hasSeeds ? personas.find((p) => p.id === personaId) : undefined;
      const goal = hasSeeds ? goals.find((g) => g.id === goalId) : undefined;
      const s = await api.createSession({
        campaign_id: campaign.id,
        persona: persona ?? { id: "manual", name: adHocPersona.trim() || t("explore.adHocPersonaDefault") },
        goal: goal ?? { id: "manual", title: adHocGoal.trim() || t("explore.adHocGoalDefault") },
        seed_ref: persona && goal ? { persona_id: persona.id, goal_id: goal.id } : null,
        trigger: "manual",
        played_by: "person",
      });
      onStarted(s);
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {t("explore.manualHelp")}
      </Text>
      {hasSeeds ? (
        <Group grow align="flex-start">
          <Select label={t("explore.persona")} data={personas.map((p) => ({ value: p.id, label: p.name }))} value={personaId} onChange={setPersonaId} allowDeselect={false} data-testid="manual-persona" />
          <Select label={t("explore.goal")} data={goals.map((g) => ({ value: g.id, label: g.title }))} value={goalId} onChange={setGoalId} allowDeselect={false} data-testid="manual-goal" />
        </Group>
      ) : (
        <>
          <Text size="sm" c="dimmed">
            {t("explore.noSeeds")}
          </Text>
          <TextInput label={t("explore.adHocPersona")} placeholder={t("explore.adHocPersonaDefault")} value={adHocPersona} onChange={(e) => setAdHocPersona(e.currentTarget.value)} />
          <TextInput label={t("explore.adHocGoal")} placeholder={t("explore.adHocGoalDefault")} value={adHocGoal} onChange={(e) => setAdHocGoal(e.currentTarget.value)} />
        </>
      )}
      <Button w="fit-content" onClick={() => void start()} loading={busy} data-testid="explore-start">
        {t("explore.start")}
      </Button>
      <RefusalAlert error={error} campaign={campaign} onClose={() => setError(null)} />
    </Stack>
  );
}

/**
 * A running session a person plays: the conversation with speaker labels,
 * a turn counter against the budget, Enter to send, and the experience
 * record to close it. When `exitRequested`, asks whether to keep the
 * session open (to resume later) or close it with the record.
 */
export function ManualConversation({
  campaign,
  session,
  exitRequested,
  onExitCancel,
  onLeave,
}: {
  campaign: Campaign;
  session: ExplorationSession;
  exitRequested: boolean;
  onExitCancel: () => void;
  /** The window may close: `closed` when the session was closed with a record. */
  onLeave: (closed: boolean) => void;
}) {
  const { t } = useTranslation();
  const [turns, setTurns] = useState<Line[]>([]);
  const [loaded, setLoaded] = useState(session.turn_count === 0);
  const [userTurns, setUserTurns] = useState(session.turn_count);
  const [maxTurns, setMaxTurns] = useState(campaign.effective_budget.max_turns);
  const [message, setMessage] = useState("");
  // A person says how the session ended; the record's "goal achieved"
  // follows from it, so that the two never disagree.
  const [ending, setEnding] = useState<PersonEnding>("stopped");
  const achieved = ending === "user_goal_met";
  const [blockers, setBlockers] = useState("");
  const [misled, setMisled] = useState("");
  const [emotion, setEmotion] = useState<string>("neutral");
  const [notes, setNotes] = useState("");
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const bottom = useRef<HTMLDivElement | null>(null);

  useEffect(() => {
    if (session.turn_count === 0) return;
    let live = true;
    api
      .sessionMessages(session.id)
      .then((tr) => {
        if (!live) return;
        setTurns(tr.messages.map((m) => ({ role: m.role, content: m.content })));
        setUserTurns(tr.turn_count);
        setLoaded(true);
      })
      .catch((e: unknown) => live && setError(asApiError(e)));
    return () => {
      live = false;
    };
  }, [session.id, session.turn_count]);

  useEffect(() => {
    // Braces: Chromium's scrollIntoView returns a promise, which React would take for a cleanup.
    bottom.current?.scrollIntoView({ block: "nearest" });
  }, [turns.length]);

  const lines = (s: string) =>
    s
      .split("\n")
      .map((x) => x.trim())
      .filter(Boolean);
  const atLimit = userTurns >= maxTurns;

  const send = async () => {
    const content = message.trim();
    if (!content || busy || atLimit) return;
    setBusy(true);
    setError(null);
    try {
      const r = await api.sendMessage(session.id, content);
      setTurns((ts) => [...ts, { role: "user", content }, { role: "target", content: r.reply }]);
      setUserTurns(r.turn);
      setMaxTurns(r.max_turns);
      setMessage("");
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  const close = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.closeSession(session.id, {
        goal_achieved: achieved,
        end_reason: ending,
        blockers: lines(blockers),
        misled: lines(misled),
        emotion,
        notes: notes.trim() || null,
      });
      onLeave(true);
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack gap="sm" data-testid="manual-session" data-session-id={session.id}>
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <SeedSummary persona={session.persona} goal={session.goal} />
        <Stack gap={4} align="flex-end">
          <Badge size="lg" variant="light" color={atLimit ? "red" : "indigo"} data-testid="turn-counter">
            {t("explore.turnCounter", { turn: userTurns, max: maxTurns })}
          </Badge>
          <Badge variant="outline" color="gray">
            {t("explore.playedByYou")}
          </Badge>
        </Stack>
      </Group>

      <ScrollArea.Autosize mah={300} data-testid="manual-conversation">
        <Stack gap="xs">
          {!loaded && <Text size="sm" c="dimmed">{t("common.loading")}</Text>}
          {loaded && turns.length === 0 && (
            <Text size="sm" c="dimmed">
              {t("explore.firstMessage")}
            </Text>
          )}
          {turns.map((turn, i) => (
            <Card key={i} padding="xs" withBorder bg={turn.role === "user" ? "gray.0" : "indigo.0"} ml={turn.role === "user" ? 0 : "xl"} mr={turn.role === "user" ? "xl" : 0} data-testid="manual-turn" data-role={turn.role}>
              <Text size="xs" c="dimmed" fw={500}>
                {turn.role === "user" ? t("explore.you") : t("explore.targetSpeaker")}
              </Text>
              <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
                {turn.content}
              </Text>
            </Card>
          ))}
          <div ref={bottom} />
        </Stack>
      </ScrollArea.Autosize>

      <Group align="flex-end" wrap="nowrap">
        <Textarea
          flex={1}
          autosize
          minRows={1}
          maxRows={6}
          label={t("explore.message")}
          description={atLimit ? t("explore.limitReached", { max: maxTurns }) : t("explore.enterHint")}
          value={message}
          disabled={atLimit}
          onChange={(e) => setMessage(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
          data-testid="manual-message"
        />
        <Button onClick={() => void send()} loading={busy} disabled={!message.trim() || atLimit} data-testid="manual-send">
          {t("explore.send")}
        </Button>
      </Group>
      <RefusalAlert error={error} campaign={campaign} onClose={() => setError(null)} />

      <Card withBorder data-testid="close-record">
        <Text fw={500} mb="xs">
          {t("explore.closeTitle")}
        </Text>
        <Stack gap="xs">
          <Select
            w={320}
            label={t("explore.ending")}
            description={t("explore.endingHelp")}
            data={PERSON_ENDINGS.map((e) => ({ value: e, label: codeLabel(t, "endReason", e) }))}
            value={ending}
            onChange={(v) => setEnding((v as PersonEnding | null) ?? "stopped")}
            allowDeselect={false}
            data-testid="record-ending"
          />
          <Group grow align="flex-start">
            <Textarea label={t("session.blockers")} description={t("explore.onePerLine")} autosize minRows={1} value={blockers} onChange={(e) => setBlockers(e.currentTarget.value)} data-testid="record-blockers" />
            <Textarea label={t("session.misled")} description={t("explore.misledHelp")} autosize minRows={1} value={misled} onChange={(e) => setMisled(e.currentTarget.value)} data-testid="record-misled" />
          </Group>
          <Group grow align="flex-start">
            <Select
              label={t("session.emotion")}
              data={EMOTIONS.map((e) => ({ value: e, label: t(`explore.emotion_${e}`) }))}
              value={emotion}
              onChange={(v) => setEmotion(v ?? "neutral")}
              allowDeselect={false}
              data-testid="record-emotion"
            />
            <Textarea label={t("session.notes")} autosize minRows={1} value={notes} onChange={(e) => setNotes(e.currentTarget.value)} data-testid="record-notes" />
          </Group>
          <Button w="fit-content" variant="light" onClick={() => void close()} loading={busy} data-testid="manual-close">
            {t("explore.closeSession")}
          </Button>
        </Stack>
      </Card>

      <Modal opened={exitRequested} onClose={onExitCancel} title={t("explore.exitTitle")} centered data-testid="exit-confirm">
        <Stack gap="sm">
          <Text size="sm">{t("explore.exitBody")}</Text>
          <List size="sm">
            <List.Item>
              {t("explore.ending")}: {codeLabel(t, "endReason", ending)}
            </List.Item>
            <List.Item>
              {t("session.emotion")}: {t(`explore.emotion_${emotion}`)}
            </List.Item>
          </List>
          <RefusalAlert error={error} campaign={campaign} />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={onExitCancel}>
              {t("explore.exitBack")}
            </Button>
            <Button variant="light" onClick={() => onLeave(false)} data-testid="exit-keep-open">
              {t("explore.exitKeep")}
            </Button>
            <Button onClick={() => void close()} loading={busy} data-testid="exit-close-session">
              {t("explore.exitClose")}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
