// Helpers of the transports: query strings of the searches (server-side
// paging of runs and sessions), telling a missing operation from a failed
// one, and the ratings saved from this UI.

import type { HumanReview } from "../bindings";
import { asApiError } from "./errors";

/** Whether an error says the operation does not exist on this backend. */
export function isMissingOperation(e: unknown): boolean {
  const err = asApiError(e);
  if (err.code === "NOT_FOUND" && err.message === "no such route") return true;
  // A path that exists for another method answers 405 (INVALID_INPUT).
  if (/HTTP 405|method not allowed/i.test(err.message)) return true;
  return /command .* not found|unknown command/i.test(err.message);
}

/** The query string of a search (empty values left out). */
export function queryString(q: Record<string, unknown>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === null || v === undefined || v === "") continue;
    p.set(k, Array.isArray(v) ? v.join(",") : String(v));
  }
  return p.toString();
}

// Ratings: read back from the backend when it lists reviews; otherwise the
// ratings saved from this UI are remembered here so that a drawer shows
// them when it reopens.
const REVIEWS_STORAGE = "agenteval.reviews";

type Remembered = Record<string, Pick<HumanReview, "rating" | "comment" | "created_at">>;

function readRemembered(): Remembered {
  try {
    const v: unknown = JSON.parse(window.localStorage.getItem(REVIEWS_STORAGE) ?? "{}");
    return typeof v === "object" && v !== null ? (v as Remembered) : {};
  } catch {
    return {};
  }
}

export function rememberReview(r: HumanReview): void {
  const all = readRemembered();
  all[r.subject_id] = { rating: r.rating, comment: r.comment, created_at: r.created_at };
  try {
    window.localStorage.setItem(REVIEWS_STORAGE, JSON.stringify(all));
  } catch {
    // Storage full or denied: the rating is stored on the server anyway.
  }
}

export function rememberedReview(subjectId: string): { rating: number; comment: string; created_at: string } | null {
  return readRemembered()[subjectId] ?? null;
}

