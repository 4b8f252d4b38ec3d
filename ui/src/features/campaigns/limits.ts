// The ranges the engine accepts when a campaign is created. The form
// refuses a number outside them at the field, with the range in words, and
// never changes what the user typed.

export type Range = { min: number; max: number; minExclusive?: boolean; integer?: boolean };

export const LIMITS = {
  durationHours: { min: 0, max: 8760, minExclusive: true },
  /** The accelerated line is any time scale above 1. */
  timeScale: { min: 1, max: 10000, minExclusive: true },
  maxSessions: { min: 1, max: 1000, integer: true },
  maxTurns: { min: 1, max: 100, integer: true },
  minIntervalMinutes: { min: 0, max: 10080, integer: true },
  rounds: { min: 1, max: 1000, integer: true },
  patience: { min: 1, max: 5, integer: true },
  technicalLevel: { min: 1, max: 5, integer: true },
  changeMind: { min: 0, max: 1 },
  concurrency: { min: 1, max: 1024, integer: true },
} satisfies Record<string, Range>;

export type RangeProblem = { key: "errRange" | "errRangeAbove" | "errInteger"; min: number; max: number } | null;

/** Why `v` is outside `r`, or null when it is inside. */
export function outOfRange(v: number, r: Range): RangeProblem {
  if (!Number.isFinite(v)) return { key: r.minExclusive ? "errRangeAbove" : "errRange", min: r.min, max: r.max };
  const low = r.minExclusive ? v <= r.min : v < r.min;
  if (low || v > r.max) return { key: r.minExclusive ? "errRangeAbove" : "errRange", min: r.min, max: r.max };
  if (r.integer && !Number.isInteger(v)) return { key: "errInteger", min: r.min, max: r.max };
  return null;
}

/** A NumberInput value as a number, or null when empty; text that is no number is NaN. */
export function numberOf(v: number | string): number | null {
  if (typeof v === "number") return v;
  if (v.trim() === "") return null;
  const n = Number(v);
  return Number.isNaN(n) ? Number.NaN : n;
}

/** `30m`, `6h`, `1d` as minutes; null when not of that form. */
export function periodMinutes(s: string): number | null {
  const m = /^\s*(\d+)\s*([mhd])\s*$/.exec(s);
  if (!m) return null;
  const n = Number(m[1]);
  if (n <= 0) return null;
  return m[2] === "m" ? n : m[2] === "h" ? n * 60 : n * 1440;
}

/** `HH:MM` (24 h) as minutes after midnight; null when not of that form. */
export function timeOfDayMinutes(s: string): number | null {
  const m = /^(\d{2}):(\d{2})$/.exec(s.trim());
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  return h < 24 && min < 60 ? h * 60 + min : null;
}
