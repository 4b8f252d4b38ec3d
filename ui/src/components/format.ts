// Numbers, percentages, dates and durations in the UI's language (Intl),
// never in a fixed US format.

import i18n from "../i18n";

/** The BCP 47 locale of the UI language. */
export function locale(): string {
  if (i18n.language?.startsWith("zh")) return "zh-CN";
  const nav = typeof navigator !== "undefined" ? navigator.language : "en";
  return nav.toLowerCase().startsWith("en") ? nav : "en";
}

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function numberFormat(opts: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `n|${locale()}|${JSON.stringify(opts)}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale(), opts);
    cache.set(key, f);
  }
  return f as Intl.NumberFormat;
}

function dateFormat(opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `d|${locale()}|${JSON.stringify(opts)}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale(), opts);
    cache.set(key, f);
  }
  return f as Intl.DateTimeFormat;
}

export const DASH = "—";

/** A share 0..1 as a percentage with one decimal. */
export function pct(v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return DASH;
  return numberFormat({ style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(v);
}

/** A signed percentage-point change (e.g. +4.2%). */
export function signedPct(v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return DASH;
  return numberFormat({ style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: "exceptZero" }).format(v);
}

/** A count or measure with the locale's grouping. */
export function num(v: number | null | undefined, digits = 0): string {
  if (v === null || v === undefined || Number.isNaN(v)) return DASH;
  return numberFormat({ minimumFractionDigits: digits, maximumFractionDigits: digits }).format(v);
}

/**
 * Milliseconds with their unit (e.g. "840 ms", "840毫秒"); under one (a
 * built-in target answers in no measurable time) "<1 ms", never "0 ms".
 */
export function ms(v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return DASH;
  const f = numberFormat({ style: "unit", unit: "millisecond", unitDisplay: "short", maximumFractionDigits: 0 });
  return Math.round(v) < 1 ? `<${f.format(1)}` : f.format(v);
}

/** A date and time in the UI's locale and the user's time zone. */
export function when(iso: string | null | undefined): string {
  if (!iso) return DASH;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateFormat({ dateStyle: "medium", timeStyle: "short" }).format(d);
}

/** A time of day (for turns of one conversation). */
export function clock(iso: string | null | undefined): string {
  if (!iso) return DASH;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateFormat({ timeStyle: "medium" }).format(d);
}

function unit(v: number, u: "second" | "minute" | "hour" | "day", digits: number): string {
  return numberFormat({ style: "unit", unit: u, unitDisplay: "short", maximumFractionDigits: digits }).format(v);
}

/** A length of time with its unit, in the UI's language. */
export function duration(msValue: number): string {
  if (msValue < 60_000) return unit(Math.round(msValue / 1000), "second", 0);
  if (msValue < 3_600_000) return unit(Math.round(msValue / 60_000), "minute", 0);
  if (msValue < 86_400_000) return unit(msValue / 3_600_000, "hour", 1);
  return unit(msValue / 86_400_000, "day", 1);
}

/** Minutes with their unit. */
export function minutes(v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return DASH;
  return unit(v, "minute", 0);
}
