// Seeds proposed from production conversations, as the page shows them:
// the personas and goals, who proposed them, and why the analyst model's
// proposal was not used when rules stood in. The engine's answer is read
// here alone.

import { api, type Goal, type Lang, type Msg, type Persona, type SeedProposer, type SeedSet, type Value } from "../../api";

export type Proposal = {
  seeds: SeedSet;
  /** Who proposed them: the analyst model, or simple rules. */
  proposedBy: SeedProposer;
  /** Why the analyst model's proposal was not used (rules proposed instead). */
  analystProblem: Msg | null;
};

/** Personas and goals proposed from conversations `ids`, written in `lang`. */
export async function propose(ids: string[], lang: Lang): Promise<Proposal> {
  const p = await api.proposeSeeds(ids, lang);
  return { seeds: p.seed_set, proposedBy: p.proposed_by, analystProblem: p.analyst_problem ?? null };
}

/** Where a proposed persona or goal comes from: its conversations and their traces. */
export type SeedLineage = { keys: string[]; traceIds: string[] };

function field(v: Value | undefined, key: string): Value | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v[key] : undefined;
}

function strings(v: Value | undefined): string[] {
  if (typeof v === "string") return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** The lineage a proposed persona or goal carries, if any. */
export function lineageOf(seed: Persona | Goal): SeedLineage | null {
  const l = seed.lineage;
  if (l === undefined || l === null) return null;
  return { keys: [...strings(field(l, "keys")), ...strings(field(l, "key"))], traceIds: strings(field(l, "trace_ids")) };
}
