import { Badge, Button, Card, Group, SegmentedControl, Stack, Table, Text } from "@mantine/core";
import { useState } from "react";
import { useBlindItem } from "./useBlindItem";
import { useTranslation } from "react-i18next";
import { useEngineText } from "../../i18n/engine";
import { api, type BlindRunQueue, type RunLabelRevealed } from "../../api";
import { Conversation } from "../../components/Conversation";
import { ErrorAlert } from "../../components/ErrorAlert";
import { num } from "../../components/format";
import { CodeSpans } from "../../components/CodeSpans";
import { JudgeScore, ReviewerAndSubmit } from "./BlindParts";

const SCALE = ["1", "2", "3", "4", "5"];

/**
 * Fixed runs in the blind review queue: one run whose rubric checks the
 * judge scored, shown with its conversation and rubrics but not the
 * judge's scores; the person scores each rubric 1-5, then sees their
 * scores and the judge's side by side, then the next run.
 */
export function BlindRunReview({
  campaignId,
  targetName,
  onLabelled,
}: {
  campaignId: string;
  targetName: string;
  /** After each stored label: the report's calibration has changed. */
  onLabelled: () => void;
}) {
  const { t } = useTranslation();
  const tx = useEngineText();
  const { queue, draft, setDraft, revealed, error, setError, busy, submit: store, next } = useBlindItem<
    BlindRunQueue,
    Record<number, number>,
    RunLabelRevealed
  >(() => api.blindRunQueue(campaignId, 1), campaignId, onLabelled);
  const [reviewer, setReviewer] = useState("");

  const item = queue?.items[0] ?? null;
  const complete = item !== null && item.rubrics.every((r) => draft[r.check_index] !== undefined);

  const submit = async () => {
    if (!item || !complete) return;
    const scores = item.rubrics.map((r) => ({ check_index: r.check_index, score: draft[r.check_index] }));
    await store(() => api.submitRunLabel({ run_id: item.run_id, scores, reviewer }));
  };

  return (
    <Stack data-testid="blind-runs">
      {queue && (
        <Text size="sm" data-testid="blind-progress">
          {t("blind.runProgress", { labelled: num(queue.labelled + (revealed ? 1 : 0)), remaining: num(Math.max(0, queue.remaining - (revealed ? 1 : 0))) })}
        </Text>
      )}
      <ErrorAlert error={error} onClose={() => setError(null)} />
      {queue && !item && (
        <Text c="dimmed" data-testid="blind-empty">
          {t("blind.runEmpty")}
        </Text>
      )}
      {item && (
        <Stack data-testid="blind-item" data-run={item.run_id}>
          <Group gap="xs">
            <Badge variant="light" color="grape" data-testid="blind-kind">
              {t("blind.kindRun")}
            </Badge>
            <Text size="sm" fw={600}>
              {item.scenario_title}
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
                <Text fw={600}>{t("blind.rubricRateTitle")}</Text>
                {item.rubrics.map((r) => (
                  <Stack key={r.check_index} gap={4} data-testid={`blind-rubric-${r.check_index}`}>
                    <Text size="sm" fw={600}>
                      {t("blind.rubricOfTurn", { n: num(r.turn + 1) })}
                    </Text>
                    <Text size="sm" data-testid="blind-rubric-text">
                      {r.rubric}
                    </Text>
                    <SegmentedControl
                      w="fit-content"
                      data={SCALE}
                      value={draft[r.check_index] ? String(draft[r.check_index]) : ""}
                      onChange={(v) => setDraft((d) => ({ ...d, [r.check_index]: Number(v) }))}
                      aria-label={t("blind.rubricOfTurn", { n: num(r.turn + 1) })}
                      data-testid={`blind-rubric-score-${r.check_index}`}
                    />
                  </Stack>
                ))}
                <Text size="xs" c="dimmed">
                  {t("blind.rubricScale")}
                </Text>
                <ReviewerAndSubmit reviewer={reviewer} onReviewer={setReviewer} disabled={!complete || busy} onSubmit={() => void submit()} />
              </Stack>
            </Card>
          ) : (
            <Card withBorder padding="sm" data-testid="blind-revealed">
              <Stack gap="sm">
                <Text fw={600}>{t("blind.sideBySide")}</Text>
                <Table>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t("blind.rubricColumn")}</Table.Th>
                      <Table.Th>{t("blind.you")}</Table.Th>
                      <Table.Th>{t("blind.judge")}</Table.Th>
                      <Table.Th>{t("blind.reason")}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {revealed.checks.map((c) => (
                      <Table.Tr key={c.check_index} data-testid={`blind-row-rubric-${c.check_index}`}>
                        <Table.Td>
                          <Text size="xs" style={{ overflowWrap: "anywhere" }}>
                            {c.rubric}
                          </Text>
                        </Table.Td>
                        <Table.Td data-testid={`blind-mine-rubric-${c.check_index}`}>{num(c.mine)}</Table.Td>
                        <Table.Td>
                          <JudgeScore judge={c.judge} mine={c.mine} testId={`blind-judge-rubric-${c.check_index}`} />
                        </Table.Td>
                        <Table.Td>
                          <Text size="xs" style={{ overflowWrap: "anywhere" }}>
                            <CodeSpans text={tx(c.reason)} />
                          </Text>
                          <Text size="xs" c="dimmed">
                            {t(c.judged_by === "model" ? "blind.byModel" : "blind.byHeuristic")}
                          </Text>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
                <Button w="fit-content" onClick={next} data-testid="blind-next">
                  {t("blind.nextRun")}
                </Button>
              </Stack>
            </Card>
          )}
        </Stack>
      )}
    </Stack>
  );
}
