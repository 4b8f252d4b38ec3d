import { Badge, Drawer, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { api, ApiError, type Run, type ScenarioSummary } from "../../api";
import { Conversation, roundsOf } from "../../components/Conversation";
import { ErrorAlert } from "../../components/ErrorAlert";
import { ms, num, when } from "../../components/format";
import { Link } from "../../components/Link";
import { CheckKindBadge, codeLabel } from "../../components/labels";
import { NestedModal } from "../../components/nested";
import { RatingForm } from "../../components/RatingForm";
import { stepId, Steps } from "../../components/Steps";
import { useLoad } from "../../components/useLoad";
import { VerdictBadge } from "./labels";
import { knownRuns } from "./RunsCard";
import { useEngineText } from "../../i18n/engine";
import { CodeSpans } from "../../components/CodeSpans";

async function loadRun(campaignId: string, runId: string): Promise<Run> {
  const cached = knownRuns.get(runId);
  if (cached && cached.status === "done") return cached;
  const { run } = await api.getRun(runId);
  if (run.campaign_id !== campaignId) {
    throw new ApiError({
      code: "NOT_FOUND",
      message: `run ${runId} is not a run of this campaign`,
      suggestion: "Open the run from the campaign's runs table.",
      next_allowed_at: null,
    });
  }
  knownRuns.set(run.id, run);
  return run;
}

/** One fixed-scenario run: its turns with the failed checks at the turn they judged, and a rating. */
export function RunDrawer({
  campaignId,
  runId,
  turn,
  step,
  scenarios,
  onClose,
}: {
  campaignId: string;
  runId: string;
  /** The turn (1-based) to highlight; the first failed check's turn when absent. */
  turn: number | null;
  /** The step (1-based, of the highlighted turn) to highlight and scroll to. */
  step?: number | null;
  scenarios: ScenarioSummary[];
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const tx = useEngineText();
  // A step's document open over the drawer keeps Escape and the focus.
  const [modalOpen, setModalOpen] = useState(false);
  const run = useLoad(() => loadRun(campaignId, runId), [campaignId, runId], (e) => e.kind === "run_finished" && e.run_id === runId);
  const r = run.data;
  const turns = useLoad(
    () => api.runTurns(runId),
    [runId],
    (e) => e.kind === "run_finished" && e.run_id === runId,
  );
  const title = r ? (scenarios.find((s) => s.id === r.scenario_id)?.title ?? r.scenario_id) : "";
  const firstFailed = r?.check_results.find((c) => !c.passed);
  const highlight = turn ?? (firstFailed ? firstFailed.turn + 1 : null);
  const litStep = highlight !== null && step != null ? step : null;
  const rounds = roundsOf(turns.data ?? []);
  const stepLink = (turn0: number, n: number) => ({ kind: "run" as const, id: campaignId, rid: runId, turn: turn0 + 1, step: n });
  const notes = new Map<number, ReactNode[]>();
  for (const c of r?.check_results ?? []) {
    if (c.passed) continue;
    const list = notes.get(c.turn + 1) ?? [];
    list.push(
      <Group gap={4} wrap="nowrap" align="flex-start">
        <CheckKindBadge kind={c.kind} passed={false} />
        <Text size="xs">
          <CodeSpans text={tx(c.detail)} />
          {c.step != null && (
            <>
              {" "}
              <Link to={stepLink(c.turn, c.step)} replace size="xs" data-testid="note-step-link">
                {t("steps.n", { n: num(c.step) })}
              </Link>
            </>
          )}
        </Text>
      </Group>,
    );
    notes.set(c.turn + 1, list);
  }

  return (
    <Drawer
      opened
      onClose={onClose}
      position="right"
      size="xl"
      closeOnEscape={!modalOpen}
      trapFocus={!modalOpen}
      title={r ? t("ev.runTitle", { title, seq: num(r.seq + 1) }) : t("run.title")}
      data-testid="run-drawer"
    >
      <ErrorAlert error={run.error} />
      {r && (
        <Stack data-run-id={r.id}>
          <Group gap="xs">
            <VerdictBadge verdict={r.verdict} status={r.status} />
            {r.error && (
              <Badge color="gray" variant="light" data-testid="run-error-kind">
                {codeLabel(t, "errorReason", r.error.kind)}
              </Badge>
            )}
            <Text size="xs" c="dimmed">
              {when(r.started_at ?? r.scheduled_at)}
            </Text>
            {r.metrics && (
              <Text size="xs" c="dimmed">
                {t("ev.runMetrics", {
                  latency: ms(r.metrics.latency_ms_max),
                  tin: num(r.metrics.tokens_in),
                  tout: num(r.metrics.tokens_out),
                })}
              </Text>
            )}
          </Group>
          {r.error?.detail && (
            <Text size="sm" data-testid="run-error-detail">
              <CodeSpans text={tx(r.error.detail)} />
            </Text>
          )}
          {r.check_results.length > 0 && <Title order={5}>{t("run.checks")}</Title>}
          <Table data-testid="run-checks">
            <Table.Tbody>
              {r.check_results.map((c, i) => (
                <Table.Tr key={i} data-testid={c.passed ? "check-passed" : "check-failed"}>
                  <Table.Td w={110}>
                    <Link to={{ kind: "run", id: campaignId, rid: r.id, turn: c.turn + 1 }} replace size="sm">
                      {t("ev.turnN", { n: num(c.turn + 1) })}
                    </Link>
                    {c.step != null && (
                      <Link to={stepLink(c.turn, c.step)} replace size="sm" display="block" data-testid="check-step-link">
                        {t("steps.n", { n: num(c.step) })}
                      </Link>
                    )}
                  </Table.Td>
                  <Table.Td w={200}>
                    <CheckKindBadge kind={c.kind} passed={c.passed} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">
                      <CodeSpans text={tx(c.detail)} />
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Title order={5}>{t("session.conversation")}</Title>
          <ErrorAlert error={turns.error} />
          <NestedModal value={setModalOpen}>
            <Conversation
              testId="run-conversation"
              turns={(turns.data ?? []).map((x, i) => ({
                key: x.seq,
                role: x.role,
                content: x.content,
                latency_ms: x.latency_ms,
                // The steps the engine answered, then the calls it did not answer.
                extra: (
                  <Steps
                    steps={x.steps ?? []}
                    unanswered={x.tool_calls.filter((c) => !(x.steps ?? []).some((st) => st.call.id === c.id))}
                    turn={rounds[i] ?? 0}
                    lit={rounds[i] === highlight ? litStep : null}
                    testId="run-step"
                  />
                ),
              }))}
              userLabel={t("run.scriptedUser")}
              targetLabel={t("speaker.targetPlain")}
              highlight={highlight}
              focus={litStep !== null && highlight !== null ? stepId(highlight, litStep) : null}
              notes={notes}
            />
          </NestedModal>
          <RatingForm kind="run" subjectId={r.id} testPrefix="run" />
        </Stack>
      )}
    </Drawer>
  );
}
