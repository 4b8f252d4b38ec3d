// Helpers over the exploration types. Persona, goal and judge review are
// free JSON values in the engine (an external assistant may send any
// shape); these read the parts the UI shows without trusting the shape.

import type { Msg, Text, Value } from "../bindings";

export type {
  CloseSession,
  CreateSession,
  ExperienceRecord,
  ExplorationFindings,
  ExplorationSession,
  Issue,
  JudgeFinding,
  Claim,
  MessageReply,
  SessionStatus,
  SessionTranscript,
  SessionTurn,
  Value,
} from "../bindings";

function field(v: Value, key: string): Value | undefined {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
  return v[key];
}

function text(v: Value | undefined): string | null {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return null;
}

/** Words of the engine (a catalogue message) or somebody's own (a string). */
function engineText(v: Value | undefined): Text | null {
  if (typeof v === "string") return v.trim() ? v : null;
  if (v !== null && typeof v === "object" && !Array.isArray(v) && typeof v.key === "string") {
    const args = v.args;
    return { key: v.key, args: args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Msg["args"]) : {} };
  }
  return text(v);
}

/** A persona's display name: its `name`, its `id`, or the plain text. */
export function personaName(v: Value): string {
  return text(field(v, "name")) ?? text(field(v, "id")) ?? text(v) ?? "—";
}

/** A goal's display title: its `title`, its `id`, or the plain text. */
export function goalTitle(v: Value): string {
  return text(field(v, "title")) ?? text(field(v, "id")) ?? text(v) ?? "—";
}

export type JudgeScoreView = { dimension: string; score: number | null; evidence: Text | null };

/** The judge review's per-dimension scores, whatever the nesting. */
export function judgeScores(review: Value | null): JudgeScoreView[] {
  if (review === null) return [];
  const dims = field(review, "dimensions") ?? review;
  if (dims === null || typeof dims !== "object" || Array.isArray(dims)) return [];
  const out: JudgeScoreView[] = [];
  for (const [dimension, d] of Object.entries(dims)) {
    if (d === null || typeof d !== "object" || Array.isArray(d)) continue;
    const score = field(d, "score");
    out.push({
      dimension,
      score: typeof score === "number" ? score : null,
      evidence: engineText(field(d, "evidence")) ?? engineText(field(d, "reason")),
    });
  }
  return out;
}

/** Other facts of the judge review (method, summary, error: a message of the engine's, or old words). */
export function judgeFacts(review: Value | null): { key: string; value: Text }[] {
  if (review === null || typeof review !== "object" || Array.isArray(review)) return [];
  const out: { key: string; value: Text }[] = [];
  for (const key of ["method", "model", "overall", "grade", "summary", "error"]) {
    const v = engineText(review[key]);
    if (v) out.push({ key, value: v });
  }
  return out;
}

/** The judge's findings (text with grade, dimension and the round it points at). */
export function judgeFindings(
  review: Value | null,
): { grade: string; dimension: string; text: Text; turn: number | null; step: number | null }[] {
  const list = review === null ? undefined : field(review, "findings");
  if (!Array.isArray(list)) return [];
  return list.flatMap((f) => {
    const t = engineText(field(f, "text")) ?? (typeof f === "string" ? engineText(f) : null);
    const turn = field(f, "turn");
    const step = field(f, "step");
    return t
      ? [
          {
            grade: text(field(f, "grade")) ?? text(field(f, "severity")) ?? "",
            dimension: text(field(f, "dimension")) ?? "",
            text: t,
            turn: typeof turn === "number" && turn > 0 ? turn : null,
            step: typeof step === "number" && step > 0 ? step : null,
          },
        ]
      : [];
  });
}
