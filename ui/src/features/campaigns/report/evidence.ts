// Where a finding came from: the session and the round behind an issue, the
// session and turn an analysis citation names.

import type { Issue, JudgeFinding, Text } from "../../../api";
import { renderMsg, renderText } from "../../../i18n/engine";
import type { UiLanguage } from "../../../i18n";

/** The language-independent key of an issue. */
export function issueKey(issue: Issue): string {
  return issue.key || issue.text;
}

/**
 * How an issue reads: one line in the reader's language when it is one of
 * the built-in virtual user's (its counts are parameters), else each
 * phrasing once, as its writers put it.
 */
export function issueTexts(issue: Issue, lang: UiLanguage): string[] {
  if (issue.msg) return [renderMsg(issue.msg, lang)];
  return [...new Set(issue.texts.length > 0 ? issue.texts : [issue.text])];
}

const THEMES: RegExp[] = [/repeat|重复/i, /empty|空/i, /refus|拒绝|帮不了|could not help/i, /twice|again|再次|重复询问/i, /invent|unverified|编造|数字/i, /slow|latency|慢/i];

/**
 * The round of a session that an issue points at: the judge's finding in
 * that session on the same matter when there is one, else its first poor
 * finding with a round.
 */
export function turnForIssue(
  findings: JudgeFinding[],
  sessionId: string,
  issueTexts: string[],
): { turn: number; note: Text } | null {
  const mine = findings.filter((f) => f.session_id === sessionId && f.turn !== null && f.turn > 0);
  if (mine.length === 0) return null;
  const themes = THEMES.filter((re) => issueTexts.some((x) => re.test(x)));
  // The themes are read in English, the language both catalogues share keys with.
  const same = mine.find((f) => themes.some((re) => re.test(renderText(f.text, "en"))));
  const poor = mine.find((f) => f.severity === "poor" || f.severity === "severe");
  const pick = same ?? poor ?? mine[0];
  return pick && pick.turn !== null ? { turn: pick.turn, note: pick.text } : null;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** A cited turn id: `<session id>:<round>` (any separator), or a round of the claim's only session. */
export function parseTurnId(id: string, sessionIds: string[]): { sessionId: string; turn: number | null } | null {
  const m = UUID.exec(id);
  const rest = m ? id.slice(m.index + m[0].length) : id;
  const n = /(\d+)\s*$/.exec(rest);
  const turn = n ? Number(n[1]) : null;
  const sessionId = m ? m[0] : sessionIds.length === 1 ? sessionIds[0] : null;
  if (!sessionId) return null;
  return { sessionId, turn: turn !== null && turn > 0 ? turn : null };
}
