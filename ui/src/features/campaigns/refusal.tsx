import { Alert, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { TFunction } from "i18next";
import type { ApiError, Campaign, ErrorCode } from "../../api";
import { when as localDateTime } from "../../components/format";
import { CodeSpans } from "../../components/CodeSpans";
import { useEngineText } from "../../i18n/engine";

/** The refusals of the exploration ledger and of a session's state. */
const GUARDRAILS: readonly ErrorCode[] = [
  "SESSION_BUDGET_EXHAUSTED",
  "TURN_LIMIT_REACHED",
  "INTERVAL_NOT_ELAPSED",
  "AUTO_NOT_ALLOWED_ON_ACCELERATED_LINE",
  "CAMPAIGN_NOT_RUNNING",
  "SESSION_NOT_RUNNING",
];

export function isGuardrail(e: ApiError): boolean {
  return GUARDRAILS.includes(e.code);
}

export type Refusal = { title: string; sentence: string; suggestion: string };

/**
 * A guardrail refusal as a sentence in the reader's language: which limit,
 * and when the next session is allowed in local time. Null for any other
 * error, which keeps its own message and suggestion.
 */
export function refusalText(t: TFunction, e: ApiError, campaign?: Pick<Campaign, "effective_budget"> | null): Refusal | null {
  if (!isGuardrail(e)) return null;
  const budget = campaign?.effective_budget;
  const next = e.nextAllowedAt ? localDateTime(e.nextAllowedAt) : null;
  const values = {
    max: budget?.max_sessions ?? "",
    turns: budget?.max_turns ?? "",
    minutes: budget?.min_interval_minutes ?? "",
    next: next ?? "",
  };
  const key = `refusal.${e.code}`;
  let sentence = t(`${key}.sentence${budget ? "" : "Plain"}`, values);
  if (e.code === "INTERVAL_NOT_ELAPSED" && next) sentence = `${sentence} ${t("refusal.nextAt", { next })}`;
  return { title: t(`${key}.title`), sentence, suggestion: t(`${key}.suggestion`, values) };
}

/**
 * A failed operation: a guardrail refusal in words (which limit, when next),
 * anything else with the backend's message and suggestion.
 */
export function RefusalAlert({
  error,
  campaign,
  onClose,
  testId = "refusal",
}: {
  error: ApiError | null;
  campaign?: Pick<Campaign, "effective_budget"> | null;
  onClose?: () => void;
  testId?: string;
}) {
  const { t } = useTranslation();
  const tx = useEngineText();
  if (!error) return null;
  const r = refusalText(t, error, campaign);
  // The backend's own sentences in the reader's language when it sent them as catalogue messages.
  const message = error.text ? tx(error.text.message) : error.message;
  const suggestion = error.text ? tx(error.text.suggestion) : error.suggestion;
  const forbidden = error.code === "FORBIDDEN";
  return (
    <Alert
      color={r ? "orange" : "red"}
      title={r ? r.title : forbidden ? t("error.FORBIDDEN.title") : t("refusal.failedTitle")}
      withCloseButton={Boolean(onClose)}
      onClose={onClose}
      data-testid={testId}
      data-code={error.code}
    >
      <Text size="sm">{r ? r.sentence : forbidden ? t("error.FORBIDDEN.sentence") : <CodeSpans text={message} />}</Text>
      {(r?.suggestion ?? suggestion) && (
        <Text size="sm" mt={4} c="dimmed">
          <CodeSpans text={r?.suggestion ?? suggestion} />
        </Text>
      )}
    </Alert>
  );
}
