import { Badge, Box, Code, Group, Paper, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { Step, StepAnswer, ToolCall, ToolError } from "../api";
import { FoldedText } from "./FoldedText";
import { ms, num } from "./format";
import { StepDocument } from "./StepDocument";

/** The element id of step `n` (1-based) of turn `turn`, for links and scrolling. */
export function stepId(turn: number, n: number): string {
  return `step-${turn}-${n}`;
}

/** A tool's arguments or answer as the agent saw it: JSON indented, a plain string as it is. */
function pretty(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v, null, 2);
}

const LIST = { listStyle: "none", margin: 0, padding: 0, display: "flex", flexDirection: "column", gap: 6 } as const;

/**
 * The steps an agent took before one reply, in order: the tool it chose,
 * with what, what came back (a result, an error with its code, message and
 * suggestion, or an answer a model made up), how long its reply took, and
 * the document the step wrote. `turn` numbers the steps' ids
 * (`step-<turn>-<n>`); `lit` is the step (1-based) to highlight.
 * `unanswered` are calls the turn ended on, listed after the steps.
 */
export function Steps({
  steps,
  turn,
  lit,
  unanswered = [],
  testId = "step",
}: {
  steps: Step[];
  turn: number;
  lit?: number | null;
  unanswered?: ToolCall[];
  testId?: string;
}) {
  const { t } = useTranslation();
  if (steps.length === 0 && unanswered.length === 0) return null;
  return (
    <Box mt="xs" data-testid="steps">
      {steps.length > 0 && (
        <Text size="xs" fw={600} c="dimmed" mb={4}>
          {t("steps.count", { n: num(steps.length) })}
        </Text>
      )}
      <ol style={LIST}>
        {steps.map((step, i) => (
          <li key={`${step.call.id}-${i}`}>
            <StepCard step={step} n={i + 1} turn={turn} lit={lit === i + 1} testId={testId} />
          </li>
        ))}
        {unanswered.map((call) => (
          <li key={call.id}>
            <Paper withBorder p="xs" radius="sm" data-testid={`${testId}-unanswered`}>
              <Group gap="xs" wrap="wrap">
                <Text ff="monospace" fw={700} size="sm">
                  {call.name}
                </Text>
                <Badge size="sm" color="gray" variant="light">
                  {t("steps.unanswered")}
                </Badge>
                <Text size="xs" c="dimmed">
                  {t("steps.unansweredHint")}
                </Text>
              </Group>
              <Part label={t("steps.arguments")} />
              <FoldedText
                text={pretty(call.arguments)}
                label={(action) => t("steps.foldLabelCall", { tool: call.name, part: t("steps.arguments"), action })}
                testId={`${testId}-arguments`}
              />
            </Paper>
          </li>
        ))}
      </ol>
    </Box>
  );
}

function failed(answer: StepAnswer): answer is Extract<StepAnswer, { value: ToolError }> {
  return answer.kind === "error" || answer.kind === "simulated_error";
}

function StepCard({ step, n, turn, lit, testId }: { step: Step; n: number; turn: number; lit: boolean; testId: string }) {
  const { t } = useTranslation();
  const simulated = step.answer.kind === "simulated" || step.answer.kind === "simulated_error";
  const label = (part: string) => (action: string) => t("steps.foldLabel", { n: num(n), part, action });
  return (
    <Paper
      withBorder
      p="xs"
      radius="sm"
      id={stepId(turn, n)}
      data-testid={testId}
      data-step={`${turn}-${n}`}
      data-highlighted={lit ? "true" : undefined}
      style={lit ? { borderColor: "var(--mantine-color-orange-6)", borderWidth: 2, boxShadow: "0 0 0 2px var(--mantine-color-orange-1)" } : undefined}
    >
      <Group gap="xs" justify="space-between" wrap="wrap">
        <Group gap="xs" wrap="wrap">
          <Badge size="sm" variant={lit ? "filled" : "light"} color={failed(step.answer) ? "red" : "gray"} data-testid="step-number">
            {t("steps.n", { n: num(n) })}
          </Badge>
          <Text ff="monospace" fw={700} size="sm" data-testid="step-tool">
            {step.call.name}
          </Text>
          {simulated && (
            <Badge size="sm" color="grape" variant="light" data-testid="step-simulated">
              {t("steps.simulated")}
            </Badge>
          )}
        </Group>
        <Text size="xs" c="dimmed">
          {t("steps.took", { time: ms(step.latency_ms) })}
        </Text>
      </Group>
      {simulated && (
        <Text size="xs" c="grape.9" mt={2}>
          {t("steps.simulatedHint")}
        </Text>
      )}
      <Part label={t("steps.arguments")} />
      <FoldedText text={pretty(step.call.arguments)} label={label(t("steps.arguments"))} testId={`${testId}-arguments`} />
      {failed(step.answer) ? (
        <StepError error={step.answer.value} />
      ) : (
        <>
          <Part label={t("steps.result")} />
          <FoldedText text={pretty(step.answer.value)} label={label(t("steps.result"))} testId={`${testId}-result`} />
        </>
      )}
      {step.document && <StepDocument document={step.document} n={n} tool={step.call.name} />}
    </Paper>
  );
}

function Part({ label }: { label: string }) {
  return (
    <Text size="xs" fw={600} c="dark.6" mt={6} mb={2}>
      {label}
    </Text>
  );
}

/** An error as the tool reported it: its code, what happened and how to go on, never translated. */
function StepError({ error }: { error: ToolError }) {
  const { t } = useTranslation();
  return (
    <Box
      mt={6}
      p={6}
      data-testid="step-error"
      style={{
        display: "grid",
        gridTemplateColumns: "auto 1fr",
        columnGap: 10,
        rowGap: 2,
        alignItems: "baseline",
        background: "var(--mantine-color-red-0)",
        borderLeft: "3px solid var(--mantine-color-red-7)",
        borderRadius: 4,
      }}
    >
      <Text size="xs" fw={700} c="red.9">
        {t("steps.error")}
      </Text>
      <div>
        <Code c="red.9" fw={700} data-testid="step-error-code">
          {error.code}
        </Code>
        <Text size="sm" c="red.9" style={{ overflowWrap: "anywhere" }} data-testid="step-error-message">
          {error.message}
        </Text>
      </div>
      {error.suggestion && (
        <>
          <Text size="xs" fw={700} c="dark.7">
            {t("steps.suggestion")}
          </Text>
          <Text size="sm" style={{ overflowWrap: "anywhere" }} data-testid="step-error-suggestion">
            {error.suggestion}
          </Text>
        </>
      )}
    </Box>
  );
}
