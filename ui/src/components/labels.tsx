// Badges and words for the engine's codes (session status, trigger, who
// played the user, end reasons, check types, judge grades...), translated;
// an unknown code is shown in words rather than as a raw identifier.

import { Badge, type BadgeProps } from "@mantine/core";
import type { TFunction } from "i18next";
import { useTranslation } from "react-i18next";
import type { ExplorationSession } from "../api";

/** `max_turns` -> "max turns": the fallback for a code with no translation. */
export function humanize(code: string): string {
  return code.replace(/[_-]+/g, " ").trim();
}

export type CodeKind =
  | "sessionStatus"
  | "trigger"
  | "playedBy"
  | "endReason"
  | "checkKind"
  | "grade"
  | "emotion"
  | "dimension"
  | "trajectoryKind"
  | "errorReason"
  | "judgeStatus"
  | "issueKind"
  | "runStatus"
  | "judgeFact"
  | "outputMode"
  | "role"
  | "faultKind"
  | "language"
  | "hostRole";

/** The translated word of an engine code. */
export function codeLabel(t: TFunction, kind: CodeKind, code: string): string {
  return t(`codes.${kind}.${code}`, { defaultValue: humanize(code) });
}

const SESSION_COLOR: Record<string, string> = { running: "blue", completed: "teal", failed: "red", expired: "gray" };

/** A badge that never cuts its text: it wraps inside its box instead. */
export function WordBadge(props: BadgeProps & { children: React.ReactNode; "data-testid"?: string }) {
  return <Badge variant="light" {...props} />;
}

export function SessionStatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <WordBadge color={SESSION_COLOR[status] ?? "gray"} data-testid="session-status">
      {codeLabel(t, "sessionStatus", status)}
    </WordBadge>
  );
}

/** The trigger; `bare` leaves out the "Trigger:" prefix (under a column that says it). */
export function TriggerBadge({ trigger, bare }: { trigger: string; bare?: boolean }) {
  const { t } = useTranslation();
  const word = codeLabel(t, "trigger", trigger);
  return (
    <WordBadge variant="outline" color="gray" data-testid="session-trigger">
      {bare ? word : t("labels.triggerBy", { trigger: word })}
    </WordBadge>
  );
}

/**
 * A target's model as people read it: the built-in demo agent by its name
 * (not `builtin:demo`), any other model as it is called.
 */
export function targetModelLabel(t: TFunction, model: string): string {
  if (model === "builtin:demo") return t("targets.builtin");
  return model;
}

/** Who played the user: a person, an external assistant, the built-in virtual user or a model. */
export function playedByLabel(t: TFunction, s: ExplorationSession): string | null {
  if (s.played_by === "model" && s.user_model) return t("labels.playedByModel", { model: s.user_model });
  return codeLabel(t, "playedBy", s.played_by);
}

/** Who played the user; `bare` leaves out the "Played by:" prefix. */
export function PlayedByBadge({ session, bare }: { session: ExplorationSession; bare?: boolean }) {
  const { t } = useTranslation();
  const label = playedByLabel(t, session);
  if (!label) return null;
  return (
    <WordBadge color="violet" data-testid="session-played-by">
      {bare ? label : t("labels.playedBy", { who: label })}
    </WordBadge>
  );
}

export function EndReasonBadge({ reason }: { reason: string | null }) {
  const { t } = useTranslation();
  if (!reason) return null;
  return (
    <WordBadge color="grape" data-testid="session-end-reason">
      {codeLabel(t, "endReason", reason)}
    </WordBadge>
  );
}

const GRADE_COLOR: Record<string, string> = { poor: "red", severe: "red", fair: "yellow", good: "teal" };

export function GradeBadge({ grade }: { grade: string }) {
  const { t } = useTranslation();
  if (!grade) return null;
  return (
    <WordBadge size="sm" color={GRADE_COLOR[grade] ?? "gray"}>
      {codeLabel(t, "grade", grade)}
    </WordBadge>
  );
}

/** A check's type, on one line: a short name that wraps inside its pill reads as two badges. */
export function CheckKindBadge({ kind, passed }: { kind: string; passed: boolean }) {
  const { t } = useTranslation();
  return (
    <WordBadge
      size="sm"
      color={passed ? "teal" : "red"}
      data-testid="check-kind"
      style={{ flexShrink: 0, maxWidth: "none" }}
      styles={{ label: { whiteSpace: "nowrap" } }}
    >
      {passed ? "✓ " : "✗ "}
      {codeLabel(t, "checkKind", kind)}
    </WordBadge>
  );
}

export function IssueKindBadge({ kind }: { kind: string }) {
  const { t } = useTranslation();
  return (
    <WordBadge size="sm" color={kind === "blocker" ? "red" : "orange"}>
      {codeLabel(t, "issueKind", kind)}
    </WordBadge>
  );
}
