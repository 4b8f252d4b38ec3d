import { Badge, Button, Card, Drawer, Group, SegmentedControl, Stack, Table, Text } from "@mantine/core";
import { useEffect, useState } from "react";
import { useBlindItem } from "./useBlindItem";
import { useTranslation } from "react-i18next";
import { useEngineText } from "../../i18n/engine";
import { api, asApiError, type BlindQueue, type CriterionScores, type LabelRevealed } from "../../api";
import { Conversation } from "../../components/Conversation";
import { ErrorAlert } from "../../components/ErrorAlert";
import { num } from "../../components/format";
import { codeLabel } from "../../components/labels";
import { BlindRunReview } from "./BlindRunReview";
import { CodeSpans } from "../../components/CodeSpans";
import { JudgeScore, ReviewerAndSubmit } from "./BlindParts";

/** The judge's criteria, in the judge's order. */
export const CRITERIA = ["attitude", "professionalism", "hallucination"] as const;
type Criterion = (typeof CRITERIA)[number];
const SCALE = ["1", "2", "3", "4", "5"];

type Draft = Partial<Record<Criterion, number>>;
/** What the queue offers: judged exploration sessions, or fixed runs with rubric checks. */
type Kind = "sessions" | "runs";

function complete(d: Draft): CriterionScores | null {
  const { attitude, professionalism, hallucination } = d;
  return attitude && professionalism && hallucination ? { attitude, professionalism, hallucination } : null;
}

/**
 * The blind review queue: one judged session at a time, rated on the
 * judge's own criteria without its verdict; after submitting, the person's
 * scores and the judge's side by side, then the next session. Fixed runs
 * whose rubric checks the judge scored are offered beside the sessions.
 */
export function BlindReview({
  campaignId,
  targetName,
  onLabelled,
  onClose,
}: {
  campaignId: string;
  targetName: string;
  /** After each stored label: the report's calibration has changed. */
  onLabelled: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const tx = useEngineText();
  const { queue, draft, setDraft, revealed, error, setError, busy, submit: store, next } = useBlindItem<BlindQueue, Draft, LabelRevealed>(
    () => api.blindQueue(campaignId, 1),
    campaignId,
    onLabelled,
  );
  const [reviewer, setReviewer] = useState("");

  // Whether the campaign has fixed runs with judged rubric checks, and
  // which kind of item is shown (sessions first when there are any).
  const [runs, setRuns] = useState<{ remaining: number; labelled: number } | null>(null);
  const [kind, setKind] = useState<Kind | null>(null);
  useEffect(() => {
    let cancelled = false;
    api
      .blindRunQueue(campaignId, 1)
      .then((q) => {
        if (!cancelled) setRuns({ remaining: q.remaining, labelled: q.labelled });
      })
      .catch((e: unknown) => {
        if (!cancelled) setError(asApiError(e));
      });
    return () => {
      cancelled = true;
    };
  }, [campaignId]);
  const hasRuns = runs !== null && runs.remaining + runs.labelled > 0;
  const hasSessions = queue !== null && queue.remaining + queue.labelled > 0;
  const shown: Kind = kind ?? (hasRuns && queue !== null && !hasSessions ? "runs" : "sessions");

  const item = queue?.items[0] ?? null;
  const scores = complete(draft);

  const submit = async () => {
    if (!item || !scores) return;
    await store(() => api.submitLabel({ session_id: item.session_id, scores, reviewer }));
  };

  return (
    <Drawer opened onClose={onClose} position="right" size="xl" title={t("blind.title")}>
      <Stack data-testid="blind-review">
        <Text size="sm" c="dimmed">
          {t("blind.intro")}
        </Text>
        {hasRuns && (
          <SegmentedControl
            w="fit-content"
            value={shown}
            onChange={(v) => setKind(v as Kind)}
            data={[
              { value: "sessions", label: t("blind.kindSessions") },
              { value: "runs", label: t("blind.kindRuns") },
            ]}
            aria-label={t("blind.kindChoice")}
            data-testid="blind-kind-choice"
          />
        )}
        {shown === "runs" && <BlindRunReview campaignId={campaignId} targetName={targetName} onLabelled={onLabelled} />}
        {shown === "sessions" && queue && (
          <Text size="sm" data-testid="blind-progress">
            {t("blind.progress", { labelled: num(queue.labelled + (revealed ? 1 : 0)), remaining: num(Math.max(0, queue.remaining - (revealed ? 1 : 0))) })}
          </Text>
        )}
        <ErrorAlert error={error} onClose={() => setError(null)} />
        {shown === "sessions" && queue && !item && (
          <Text c="dimmed" data-testid="blind-empty">
            {t("blind.empty")}
          </Text>
        )}
        {shown === "sessions" && item && (
          <Stack data-testid="blind-item" data-session={item.session_id}>
            <Group gap="xs">
              <Badge variant="light" data-testid="blind-kind">
                {t("blind.kindSession")}
              </Badge>
              <Text size="sm" fw={600}>
                {t("blind.who", { persona: item.persona_name, goal: item.goal_title })}
              </Text>
            </Group>
            <Conversation
              turns={item.turns.map((turn, i) => ({ key: i, role: turn.role, content: turn.content, latency_ms: turn.latency_ms }))}
              userLabel={t("speaker.user")}
              targetLabel={t("speaker.target", { name: targetName })}
              highlight={null}
              testId="blind-conversation"
            />
            {!revealed ? (
              <Card withBorder padding="sm" data-testid="blind-form">
                <Stack gap="sm">
                  <Text fw={600}>{t("blind.rateTitle")}</Text>
                  {CRITERIA.map((c) => (
                    <Stack key={c} gap={4}>
                      <Text size="sm" fw={600}>
                        {codeLabel(t, "dimension", c)}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {t(`blind.rubric.${c}`)}
                      </Text>
                      <SegmentedControl
                        w="fit-content"
                        data={SCALE}
                        value={draft[c] ? String(draft[c]) : ""}
                        onChange={(v) => setDraft((d) => ({ ...d, [c]: Number(v) }))}
                        aria-label={codeLabel(t, "dimension", c)}
                        data-testid={`blind-score-${c}`}
                      />
                    </Stack>
                  ))}
                  <Text size="xs" c="dimmed">
                    {t("blind.scale")}
                  </Text>
                  <ReviewerAndSubmit reviewer={reviewer} onReviewer={setReviewer} disabled={!scores || busy} onSubmit={() => void submit()} />
                </Stack>
              </Card>
            ) : (
              <Card withBorder padding="sm" data-testid="blind-revealed">
                <Stack gap="sm">
                  <Text fw={600}>{t("blind.sideBySide")}</Text>
                  <Table>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>{t("blind.criterion")}</Table.Th>
                        <Table.Th>{t("blind.you")}</Table.Th>
                        <Table.Th>{t("blind.judge")}</Table.Th>
                        <Table.Th>{t("blind.evidence")}</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {CRITERIA.map((c) => {
                        const mine = revealed.label.scores[c];
                        const theirs = revealed.judge[c];
                        return (
                          <Table.Tr key={c} data-testid={`blind-row-${c}`}>
                            <Table.Td>{codeLabel(t, "dimension", c)}</Table.Td>
                            <Table.Td data-testid={`blind-mine-${c}`}>{num(mine)}</Table.Td>
                            <Table.Td>
                              <JudgeScore judge={theirs.score} mine={mine} testId={`blind-judge-${c}`} />
                            </Table.Td>
                            <Table.Td>
                              <Text size="xs" style={{ overflowWrap: "anywhere" }}>
                                <CodeSpans text={tx(theirs.evidence)} />
                              </Text>
                            </Table.Td>
                          </Table.Tr>
                        );
                      })}
                    </Table.Tbody>
                  </Table>
                  <Text size="xs" c="dimmed">
                    {t(revealed.judge_method === "model" ? "blind.byModel" : "blind.byHeuristic")}
                  </Text>
                  <Button w="fit-content" onClick={next} data-testid="blind-next">
                    {t("blind.next")}
                  </Button>
                </Stack>
              </Card>
            )}
          </Stack>
        )}
      </Stack>
    </Drawer>
  );
}
