import { Badge, Card, Group, Stack, Text } from "@mantine/core";
import { useEffect, useRef, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { ms, num } from "./format";

export type ConversationTurn = {
  key: string | number;
  /** `user` or `target` (or another speaker on the target's side). */
  role: string;
  /** Who spoke, when neither the user nor the target (a tool's result, the system's instructions). */
  label?: string;
  content: string;
  latency_ms?: number | null;
  extra?: ReactNode;
};

/** Round numbers: each user message opens a round (1-based); a greeting before it is round 0. */
export function roundsOf(turns: { role: string }[]): number[] {
  let round = 0;
  return turns.map((t) => {
    if (t.role === "user") round += 1;
    return round;
  });
}

/**
 * A conversation, labelled by who spoke, with one round highlighted and
 * scrolled to (the turn a finding, an issue or a failed check points at),
 * or a part of a turn scrolled to (a step a failed check names).
 */
export function Conversation({
  turns,
  userLabel,
  targetLabel,
  highlight,
  notes,
  focus,
  testId,
}: {
  turns: ConversationTurn[];
  userLabel: string;
  targetLabel: string;
  /** The round to highlight and scroll to. */
  highlight: number | null;
  /** Findings or checks to show under a round, by round. */
  notes?: Map<number, ReactNode[]>;
  /** The id of an element within a turn (in its `extra`) to scroll to instead of the round. */
  focus?: string | null;
  testId: string;
}) {
  const { t } = useTranslation();
  const rounds = roundsOf(turns);
  const box = useRef<HTMLDivElement>(null);
  const ready = turns.length > 0;

  useEffect(() => {
    if (!ready) return;
    const part = focus ? box.current?.querySelector(`#${CSS.escape(focus)}`) : null;
    const el = part ?? (highlight === null ? null : box.current?.querySelector(`[data-round="${highlight}"]`));
    if (el instanceof HTMLElement) el.scrollIntoView({ block: "center", behavior: "auto" });
  }, [ready, highlight, focus]);

  return (
    <Stack gap="xs" ref={box} data-testid={testId}>
      {turns.map((turn, i) => {
        const round = rounds[i] ?? 0;
        const user = turn.role === "user";
        const lit = highlight !== null && round === highlight;
        const lastOfRound = rounds[i + 1] !== round;
        return (
          <div key={turn.key}>
            <Card
              padding="xs"
              withBorder
              bg={lit ? "yellow.0" : user ? "gray.0" : "indigo.0"}
              ml={user ? 0 : "xl"}
              mr={user ? "xl" : 0}
              style={lit ? { borderColor: "var(--mantine-color-yellow-6)", borderWidth: 2 } : undefined}
              data-round={user ? round : undefined}
              data-testid={lit ? "turn-highlighted" : "turn"}
              data-speaker={turn.role}
            >
              <Group gap={6} justify="space-between" wrap="wrap">
                <Text size="xs" fw={600} c={user ? "dark" : "indigo.8"}>
                  {turn.label ?? (user ? userLabel : targetLabel)}
                </Text>
                <Text size="xs" c="dimmed">
                  {user && round > 0 ? t("ev.turnN", { n: num(round) }) : ""}
                  {turn.latency_ms != null ? ` · ${ms(turn.latency_ms)}` : ""}
                </Text>
              </Group>
              <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
                {turn.content}
              </Text>
              {turn.extra}
            </Card>
            {lastOfRound && notes?.get(round) && (
              <Stack gap={2} mt={4} ml="xl" data-testid="turn-notes">
                {notes.get(round)?.map((n, j) => (
                  <Group key={j} gap={4} wrap="nowrap" align="flex-start">
                    <Badge size="xs" color={lit ? "yellow" : "gray"} variant="light" style={{ flexShrink: 0 }}>
                      {t("ev.turnN", { n: num(round) })}
                    </Badge>
                    <div style={{ minWidth: 0 }}>{n}</div>
                  </Group>
                ))}
              </Stack>
            )}
          </div>
        );
      })}
    </Stack>
  );
}
