import { Button, Card, Checkbox, Group, Modal, Select, Stack, Text, TextInput, Textarea } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type Campaign, type ExplorationSession } from "../../api";

type Line = { role: "user" | "target"; content: string };
import { ErrorAlert } from "../../components/ErrorAlert";

const EMOTIONS = ["satisfied", "neutral", "confused", "frustrated", "angry"];

/** A person plays the virtual user: start, converse, close with a record. */
export function ExploreModal({ campaign, onClose }: { campaign: Campaign; onClose: () => void }) {
  const { t } = useTranslation();
  const seeds = { personas: campaign.seed_set.personas ?? [], goals: campaign.seed_set.goals ?? [] };
  const [personaId, setPersonaId] = useState<string | null>(seeds.personas[0]?.id ?? null);
  const [goalId, setGoalId] = useState<string | null>(seeds.goals[0]?.id ?? null);
  const [adHocPersona, setAdHocPersona] = useState("Tester");
  const [adHocGoal, setAdHocGoal] = useState("");
  const [session, setSession] = useState<ExplorationSession | null>(null);
  const [turns, setTurns] = useState<Line[]>([]);
  const [message, setMessage] = useState("");
  const [achieved, setAchieved] = useState(false);
  const [blockers, setBlockers] = useState("");
  const [emotion, setEmotion] = useState<string | null>("neutral");
  const [notes, setNotes] = useState("");
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const hasSeeds = seeds.personas.length > 0 && seeds.goals.length > 0;

  const run = async (f: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await f();
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  const start = () =>
    run(async () => {
      const persona = hasSeeds ? seeds.personas.find((p) => p.id === personaId) : undefined;
      const goal = hasSeeds ? seeds.goals.find((g) => g.id === goalId) : undefined;
      const s = await api.createSession({
        campaign_id: campaign.id,
        persona: persona ?? { id: "manual", name: adHocPersona.trim() || "Tester" },
        goal: goal ?? { id: "manual", title: adHocGoal.trim() || "Explore freely" },
        seed_ref: persona && goal ? { persona_id: persona.id, goal_id: goal.id } : null,
        trigger: "manual",
      });
      setSession(s);
    });

  const send = () =>
    run(async () => {
      if (!session || !message.trim()) return;
      const content = message.trim();
      const r = await api.sendMessage(session.id, content);
      setTurns((ts) => [...ts, { role: "user", content }, { role: "target", content: r.reply }]);
      setMessage("");
    });

  const close = () =>
    run(async () => {
      if (!session) return;
      await api.closeSession(session.id, {
        goal_achieved: achieved,
        blockers: blockers
          .split("\n")
          .map((b) => b.trim())
          .filter(Boolean),
        misled: [],
        emotion: emotion ?? "neutral",
        notes,
      });
      onClose();
    });

  return (
    <Modal opened onClose={onClose} size="lg" title={t("explore.title")} data-testid="explore-modal">
      <Stack>
        {!session && (
          <>
            {hasSeeds ? (
              <Group grow>
                <Select label={t("explore.persona")} data={seeds.personas.map((p) => ({ value: p.id, label: p.name }))} value={personaId} onChange={setPersonaId} />
                <Select label={t("explore.goal")} data={seeds.goals.map((g) => ({ value: g.id, label: g.title }))} value={goalId} onChange={setGoalId} />
              </Group>
            ) : (
              <>
                <Text size="sm" c="dimmed">
                  {t("explore.noSeeds")}
                </Text>
                <TextInput label={t("explore.adHocPersona")} value={adHocPersona} onChange={(e) => setAdHocPersona(e.currentTarget.value)} />
                <TextInput label={t("explore.adHocGoal")} value={adHocGoal} onChange={(e) => setAdHocGoal(e.currentTarget.value)} />
              </>
            )}
            <Button onClick={() => void start()} loading={busy} data-testid="explore-start">
              {t("explore.start")}
            </Button>
          </>
        )}
        {session && (
          <>
            <Stack gap="xs">
              {turns.map((turn, i) => (
                <Card key={i} padding="xs" withBorder bg={turn.role === "user" ? "gray.0" : "indigo.0"}>
                  <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
                    {turn.content}
                  </Text>
                </Card>
              ))}
            </Stack>
            <Group align="flex-end">
              <Textarea flex={1} autosize minRows={1} label={t("explore.message")} value={message} onChange={(e) => setMessage(e.currentTarget.value)} />
              <Button onClick={() => void send()} loading={busy} disabled={!message.trim()}>
                {t("explore.send")}
              </Button>
            </Group>
            <Card withBorder>
              <Text fw={500} mb="xs">
                {t("explore.closeTitle")}
              </Text>
              <Stack gap="xs">
                <Checkbox label={t("session.goalAchieved")} checked={achieved} onChange={(e) => setAchieved(e.currentTarget.checked)} />
                <Textarea label={t("session.blockers")} autosize minRows={1} value={blockers} onChange={(e) => setBlockers(e.currentTarget.value)} />
                <Select label={t("session.emotion")} data={EMOTIONS} value={emotion} onChange={setEmotion} />
                <Textarea label={t("session.notes")} autosize minRows={1} value={notes} onChange={(e) => setNotes(e.currentTarget.value)} />
                <Button variant="light" onClick={() => void close()} loading={busy}>
                  {t("explore.closeSession")}
                </Button>
              </Stack>
            </Card>
          </>
        )}
        <ErrorAlert error={error} onClose={() => setError(null)} />
      </Stack>
    </Modal>
  );
}
