import { Badge, Button, Card, Group, Modal, ScrollArea, SegmentedControl, Select, Stack, Tabs, Text } from "@mantine/core";
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import type { TFunction } from "i18next";
import {
  api,
  ApiError,
  asApiError,
  goalTitle,
  personaName,
  type Campaign,
  type CoverageGrid,
  type ExplorationSession,
  type ExploreStarted,
  type PlayedBy,
  type RoleView,
  type SessionTranscript,
  type Trigger,
} from "../../api";
import { useLoad } from "../../components/useLoad";
import { ManualConversation, ManualStart } from "./ManualSession";
import { RefusalAlert } from "./refusal";

/** Who plays the virtual user, in words: the configured model or the built-in persona engine. */
export function VirtualUserPlayer({ view }: { view: RoleView | null | undefined }) {
  const { t } = useTranslation();
  if (view === undefined) return null;
  const text = !view
    ? t("explore.playerUnknown")
    : view.model
      ? t("explore.playerModel", { model: view.model, host: view.host ?? "" })
      : t("explore.playerBuiltin");
  return (
    <Text size="sm" data-testid="virtual-user-player">
      {text}
    </Text>
  );
}

function playedByLabel(t: TFunction, p: PlayedBy | null, model: string | null): string {
  if (p === "model") return t("explore.byModel", { model: model ?? "" });
  if (p === "builtin") return t("explore.byBuiltin");
  if (p === "person") return t("explore.byPerson");
  if (p === "assistant") return t("explore.byAssistant");
  return "";
}

/** One session the virtual user plays, its turns arriving as they are stored. */
function LiveSession({ id }: { id: string }) {
  const { t } = useTranslation();
  const [data, setData] = useState<SessionTranscript | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  useEffect(() => {
    let live = true;
    const load = () =>
      api
        .sessionMessages(id)
        .then((s) => live && setData(s))
        .catch((e: unknown) => live && setError(asApiError(e)));
    load();
    const stop = api.events((e) => {
      if (e === null || (e.kind === "session_changed" && e.session_id === id)) load();
    });
    return () => {
      live = false;
      stop();
    };
  }, [id]);

  if (!data) return <RefusalAlert error={error} />;
  const running = data.status === "running";
  return (
    <Card withBorder padding="xs" data-testid="live-session" data-status={data.status}>
      <Group justify="space-between" wrap="nowrap" mb={4}>
        <Text size="sm" fw={500}>
          {personaName(data.persona)} × {goalTitle(data.goal)}
        </Text>
        <Group gap={4} wrap="nowrap">
          <Badge variant="light" color={running ? "green" : data.status === "completed" ? "indigo" : "red"} data-testid="live-status">
            {t(`explore.status_${data.status}`)}
          </Badge>
          <Badge variant="outline" color="gray" data-testid="live-turns">
            {t("explore.userTurns", { count: data.turn_count })}
          </Badge>
        </Group>
      </Group>
      <ScrollArea.Autosize mah={220}>
        <Stack gap={4}>
          {data.messages.length === 0 && (
            <Text size="xs" c="dimmed">
              {t("explore.waitingTurns")}
            </Text>
          )}
          {data.messages.map((m) => (
            <Text key={m.seq} size="sm" data-testid="live-turn" data-role={m.role} style={{ whiteSpace: "pre-wrap" }}>
              <Text span size="xs" c="dimmed" fw={500}>
                {m.role === "user" ? t("explore.virtualUser") : t("explore.targetSpeaker")}:{" "}
              </Text>
              {m.content}
            </Text>
          ))}
        </Stack>
      </ScrollArea.Autosize>
      {data.experience && (
        <Text size="xs" c="dimmed" mt={4} data-testid="live-outcome">
          {data.experience.goal_achieved ? t("explore.outcomeAchieved") : t("explore.outcomeNotAchieved")} · {t(`explore.emotion_${data.experience.emotion}`)}
        </Text>
      )}
    </Card>
  );
}

/**
 * Lets the virtual user explore a chosen cell, or every uncovered one
 * (counted from the report's coverage, which follows the sessions as they
 * start, rather than from every session of the campaign).
 */
function VirtualExplore({ campaign, coverage }: { campaign: Campaign; coverage: CoverageGrid | null }) {
  const { t } = useTranslation();
  const personas = campaign.seed_set.personas ?? [];
  const goals = campaign.seed_set.goals ?? [];
  const hasSeeds = personas.length > 0 && goals.length > 0;
  const formal = campaign.line === "formal";
  const [personaId, setPersonaId] = useState<string | null>(personas[0]?.id ?? null);
  const [goalId, setGoalId] = useState<string | null>(goals[0]?.id ?? null);
  const [trigger, setTrigger] = useState<Trigger>(formal ? "auto" : "manual");
  const [started, setStarted] = useState<ExploreStarted | null>(null);
  const [ids, setIds] = useState<string[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState<"cell" | "uncovered" | null>(null);
  const roles = useLoad(() => api.roleModelsView(), []);

  const uncovered = useMemo(() => {
    const covered = new Set((coverage?.cells ?? []).flatMap((c) => (c.sessions > 0 ? [`${c.persona_id}\u0000${c.goal_id}`] : [])));
    let n = 0;
    for (const p of personas) for (const g of goals) if (!covered.has(`${p.id}\u0000${g.id}`)) n += 1;
    return n;
  }, [coverage, personas, goals]);

  const explore = async (which: "cell" | "uncovered") => {
    setBusy(which);
    setError(null);
    try {
      const r = await api.explore({
        campaign_id: campaign.id,
        cells: which === "cell" && personaId && goalId ? [{ persona_id: personaId, goal_id: goalId }] : null,
        trigger,
      });
      setStarted(r);
      setIds((prev) => [...r.sessions.map((s) => s.id), ...prev]);
      if (r.refused) setError(new ApiError(r.refused));
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Stack gap="sm">
      <Card withBorder padding="xs" bg="gray.0">
        <Text size="xs" c="dimmed">
          {t("explore.playedByTitle")}
        </Text>
        <VirtualUserPlayer view={roles.error ? null : roles.data ? roles.data.virtual_user : undefined} />
      </Card>
      {!hasSeeds ? (
        <Text size="sm" c="orange" data-testid="explore-no-seeds">
          {t("explore.virtualNoSeeds")}
        </Text>
      ) : (
        <>
          <Group grow align="flex-start">
            <Select label={t("explore.persona")} data={personas.map((p) => ({ value: p.id, label: p.name }))} value={personaId} onChange={setPersonaId} allowDeselect={false} data-testid="explore-persona" />
            <Select label={t("explore.goal")} data={goals.map((g) => ({ value: g.id, label: g.title }))} value={goalId} onChange={setGoalId} allowDeselect={false} data-testid="explore-goal" />
          </Group>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              {t("explore.trigger")}
            </Text>
            {formal ? (
              <SegmentedControl
                w="fit-content"
                value={trigger}
                onChange={(v) => setTrigger(v === "manual" ? "manual" : "auto")}
                data={[
                  { value: "auto", label: t("explore.triggerAuto") },
                  { value: "manual", label: t("explore.triggerManual") },
                ]}
                data-testid="explore-trigger"
              />
            ) : (
              <Badge variant="outline" w="fit-content" data-testid="explore-trigger-fixed">
                {t("explore.triggerManual")}
              </Badge>
            )}
            <Text size="xs" c="dimmed">
              {formal ? t("explore.triggerFormalHelp") : t("explore.triggerAcceleratedHelp")}
            </Text>
          </Stack>
          <Group gap="xs">
            <Button onClick={() => void explore("cell")} loading={busy === "cell"} disabled={busy !== null || !personaId || !goalId} data-testid="explore-cell">
              {t("explore.exploreCell")}
            </Button>
            <Button variant="light" onClick={() => void explore("uncovered")} loading={busy === "uncovered"} disabled={busy !== null} data-testid="explore-uncovered">
              {t("explore.exploreUncovered", { count: uncovered })}
            </Button>
          </Group>
        </>
      )}
      <RefusalAlert error={error} campaign={campaign} onClose={() => setError(null)} />
      {started && (
        <Text size="sm" data-testid="explore-started">
          {t("explore.started", { count: started.sessions.length })} {playedByLabel(t, started.played_by, roles.data?.virtual_user.model ?? null)}
        </Text>
      )}
      {ids.length > 0 && (
        <Stack gap="xs" data-testid="live-sessions">
          {ids.map((id) => (
            <LiveSession key={id} id={id} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}

/**
 * Exploration of one campaign: the virtual user (the configured model or
 * the built-in persona engine) on a chosen cell or the uncovered ones, or
 * a person playing the user. With `resume`, reopens a running session a
 * person plays. Closing the window while such a session runs asks whether
 * to keep it open or to close it with a record.
 */
export function ExploreModal({
  campaign,
  coverage = null,
  onClose,
  resume,
}: {
  campaign: Campaign;
  /** The report's coverage of the seed cells (none yet: every cell is uncovered). */
  coverage?: CoverageGrid | null;
  onClose: () => void;
  resume?: ExplorationSession | null;
}) {
  const { t } = useTranslation();
  const [tab, setTab] = useState<string>(resume ? "person" : "virtual");
  const [session, setSession] = useState<ExplorationSession | null>(resume ?? null);
  const [exitRequested, setExitRequested] = useState(false);
  const running = session !== null && session.status === "running";

  const requestClose = () => {
    if (running) setExitRequested(true);
    else onClose();
  };

  return (
    <Modal opened onClose={requestClose} size="xl" title={resume ? t("explore.resumeTitle") : t("explore.title")} data-testid="explore-modal">
      {resume ? null : (
        <Tabs value={tab} onChange={(v) => setTab(v ?? "virtual")} mb="sm">
          <Tabs.List>
            <Tabs.Tab value="virtual" data-testid="explore-tab-virtual">
              {t("explore.tabVirtual")}
            </Tabs.Tab>
            <Tabs.Tab value="person" data-testid="explore-tab-person">
              {t("explore.tabPerson")}
            </Tabs.Tab>
          </Tabs.List>
        </Tabs>
      )}
      {tab === "virtual" && !resume && <VirtualExplore campaign={campaign} coverage={coverage} />}
      {tab === "person" && !session && <ManualStart campaign={campaign} onStarted={setSession} />}
      {tab === "person" && session && (
        <ManualConversation
          campaign={campaign}
          session={session}
          exitRequested={exitRequested}
          onExitCancel={() => setExitRequested(false)}
          onLeave={() => {
            setExitRequested(false);
            onClose();
          }}
        />
      )}
    </Modal>
  );
}

/**
 * A running session a person plays, reopened from its drawer: a "resume"
 * button that opens the conversation where it stopped.
 */
export function ResumeSessionButton({ session, onDone }: { session: ExplorationSession; onDone?: () => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const campaign = useLoad(() => api.getCampaign(session.campaign_id), [session.campaign_id]);
  if (session.status !== "running") return null;
  return (
    <>
      <Button size="xs" onClick={() => setOpen(true)} disabled={!campaign.data} data-testid="session-resume">
        {t("explore.resume")}
      </Button>
      {open && campaign.data && (
        <ExploreModal
          campaign={campaign.data}
          resume={session}
          onClose={() => {
            setOpen(false);
            onDone?.();
          }}
        />
      )}
    </>
  );
}
