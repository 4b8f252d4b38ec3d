// Seed personas and goals as the editor holds them, with every field the
// virtual user reads, checks that mirror the engine's, and import/export as
// JSON or YAML. Nothing is lost on the way: a field the editor does not
// know, or a known one holding JSON its form field cannot show (a style
// object, a fact `{"value": ...}`), is kept as it came and sent back
// unchanged.

import { parse as parseJsonc, printParseErrorCode, type ParseError } from "jsonc-parser";
import YAML from "yaml";
import type { Goal, Persona, SeedSet, Value } from "../../api";
import { LIMITS, numberOf, outOfRange, type Range } from "./limits";

type JsonObject = { [key: string]: Value };

export type PersonaDraft = {
  id: string;
  name: string;
  description: string;
  traits: string[];
  style: string;
  /** NumberInput values: "" when empty; what the user typed otherwise. */
  patience: number | string;
  language: string;
  technical_level: number | string;
  change_mind: number | string;
  /** Fields the editor does not know, kept and sent back as they came. */
  extra: JsonObject;
};

/** A fact: text as typed, or (`json`) any other JSON value as its JSON text. */
export type SlotDraft = { key: string; value: string; json?: boolean };

export type GoalDraft = {
  id: string;
  title: string;
  description: string;
  criteria: string[];
  slots: SlotDraft[];
  extra: JsonObject;
};

const PERSONA_KEYS = ["id", "name", "description", "traits", "style", "patience", "language", "technical_level", "change_mind"];
const GOAL_KEYS = ["id", "title", "description", "success_criteria", "slots"];

export function newPersona(n: number): PersonaDraft {
  return {
    id: `persona-${n}`,
    name: "",
    description: "",
    traits: [],
    style: "",
    patience: 3,
    language: "",
    technical_level: 3,
    change_mind: "",
    extra: {},
  };
}

export function newGoal(n: number): GoalDraft {
  return { id: `goal-${n}`, title: "", description: "", criteria: [], slots: [], extra: {} };
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return "";
}

function num(v: unknown): number | string {
  if (typeof v === "number") return v;
  if (typeof v === "string") {
    const n = numberOf(v);
    return n === null ? "" : Number.isNaN(n) ? v : n;
  }
  return "";
}

function rest(o: JsonObject, known: string[]): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (!known.includes(k)) out[k] = v;
  return out;
}

/** A persona as stored (any JSON object) into the editor's fields. */
export function personaDraft(p: Persona | JsonObject): PersonaDraft {
  const o: JsonObject = isObject(p) ? { ...(p as JsonObject) } : {};
  const extra = rest(o, PERSONA_KEYS);
  const traits = o.traits;
  let tags: string[] = [];
  if (Array.isArray(traits)) tags = traits.map(str).filter(Boolean);
  else if (typeof traits === "string") tags = traits.split(",").map((x) => x.trim()).filter(Boolean);
  else if (traits !== undefined && traits !== null) extra.traits = traits;
  return {
    id: str(o.id),
    name: str(o.name),
    description: text(o, "description", extra),
    traits: tags,
    style: text(o, "style", extra),
    patience: numeric(o, "patience", extra),
    language: text(o, "language", extra),
    technical_level: numeric(o, "technical_level", extra),
    change_mind: numeric(o, "change_mind", extra),
    extra,
  };
}

/** A text field's value; any other JSON in it is kept in `extra` as is. */
function text(o: JsonObject, key: string, extra: JsonObject): string {
  const v = o[key];
  if (v === undefined || v === null || typeof v === "string") return v ?? "";
  extra[key] = v;
  return "";
}

/** A number field's value; JSON that is no number is kept in `extra`. */
function numeric(o: JsonObject, key: string, extra: JsonObject): number | string {
  const v = o[key];
  if (v === undefined || v === null || typeof v === "number" || typeof v === "string") return num(v);
  extra[key] = v;
  return "";
}

/** A goal as stored (any JSON object) into the editor's fields. */
export function goalDraft(g: Goal | JsonObject): GoalDraft {
  const o: JsonObject = isObject(g) ? { ...(g as JsonObject) } : {};
  const extra = rest(o, GOAL_KEYS);
  const sc = o.success_criteria;
  let criteria: string[] = [];
  if (Array.isArray(sc) && sc.every((c) => typeof c === "string")) criteria = sc.filter(Boolean) as string[];
  else if (typeof sc === "string") criteria = sc ? [sc] : [];
  else if (sc !== undefined && sc !== null) extra.success_criteria = sc;
  const slots: SlotDraft[] = isObject(o.slots)
    ? Object.entries(o.slots).map(([key, v]) => (typeof v === "string" ? { key, value: v } : { key, value: JSON.stringify(v), json: true }))
    : [];
  if (o.slots !== undefined && o.slots !== null && !isObject(o.slots)) extra.slots = o.slots;
  return { id: str(o.id), title: str(o.title), description: text(o, "description", extra), criteria, slots, extra };
}

/** A fact as sent: its text, or the JSON value its JSON text stands for. */
function slotValue(s: SlotDraft): Value {
  if (!s.json) return s.value;
  try {
    return JSON.parse(s.value) as Value;
  } catch {
    return s.value;
  }
}

/**
 * Where the seed set holds JSON the form fields do not edit, kept as given:
 * `persona-id.field` and `goal-id.slots.name`.
 */
export function keptAsJson(personas: PersonaDraft[], goals: GoalDraft[]): string[] {
  return [
    ...personas.flatMap((p) => Object.keys(p.extra).map((k) => `${p.id}.${k}`)),
    ...goals.flatMap((g) => [
      ...Object.keys(g.extra).map((k) => `${g.id}.${k}`),
      ...g.slots.filter((s) => s.json).map((s) => `${g.id}.slots.${s.key}`),
    ]),
  ];
}

function numberOrUndefined(v: number | string): number | undefined {
  if (typeof v === "number") return v;
  const n = numberOf(v);
  return n === null || Number.isNaN(n) ? undefined : n;
}

/** The editor's persona as the engine takes it (unknown fields included). */
export function personaValue(p: PersonaDraft): Persona {
  const out: JsonObject = { ...p.extra, id: p.id.trim(), name: p.name.trim() };
  if (p.description.trim()) out.description = p.description.trim();
  if (p.traits.length > 0) out.traits = p.traits;
  if (p.style.trim()) out.style = p.style.trim();
  const patience = numberOrUndefined(p.patience);
  if (patience !== undefined) out.patience = patience;
  if (p.language.trim()) out.language = p.language.trim();
  const tech = numberOrUndefined(p.technical_level);
  if (tech !== undefined) out.technical_level = tech;
  const cm = numberOrUndefined(p.change_mind);
  if (cm !== undefined) out.change_mind = cm;
  return out as Persona;
}

/** The editor's goal as the engine takes it (unknown fields included). */
export function goalValue(g: GoalDraft): Goal {
  const out: JsonObject = { ...g.extra, id: g.id.trim(), title: g.title.trim() };
  if (g.description.trim()) out.description = g.description.trim();
  const criteria = g.criteria.map((c) => c.trim()).filter(Boolean);
  if (criteria.length > 0) out.success_criteria = criteria;
  const slots: JsonObject = {};
  for (const s of g.slots) if (s.key.trim()) slots[s.key.trim()] = slotValue(s);
  if (Object.keys(slots).length > 0) out.slots = slots;
  return out as Goal;
}

export function seedSetValue(personas: PersonaDraft[], goals: GoalDraft[]): SeedSet {
  return { personas: personas.map(personaValue), goals: goals.map(goalValue) };
}

/** One field's problem: an i18n key and its values. */
export type SeedProblem = { key: string; values?: Record<string, string | number> };
export type SeedErrors = Record<string, SeedProblem>;

const ID_RE = /^[A-Za-z0-9._-]{1,64}$/;

function rangeProblem(v: number | string, r: Range): SeedProblem | null {
  if (v === "") return null;
  const n = typeof v === "number" ? v : numberOf(v);
  if (n === null) return null;
  const p = outOfRange(n, r);
  return p ? { key: `form.${p.key}`, values: { min: p.min, max: p.max } } : null;
}

/** Checks that mirror the engine's, so that mistakes show at the field. */
export function validateSeeds(personas: PersonaDraft[], goals: GoalDraft[]): SeedErrors {
  const errors: SeedErrors = {};
  const seen = new Set<string>();
  const set = (k: string, p: SeedProblem | null) => {
    if (p) errors[k] = p;
  };
  personas.forEach((p, i) => {
    if (!ID_RE.test(p.id)) errors[`p${i}.id`] = { key: "form.errId" };
    else if (seen.has(`p:${p.id}`)) errors[`p${i}.id`] = { key: "form.errDuplicate" };
    seen.add(`p:${p.id}`);
    if (!p.name.trim()) errors[`p${i}.name`] = { key: "form.errRequired" };
    set(`p${i}.patience`, rangeProblem(p.patience, LIMITS.patience));
    set(`p${i}.technical_level`, rangeProblem(p.technical_level, LIMITS.technicalLevel));
    set(`p${i}.change_mind`, rangeProblem(p.change_mind, LIMITS.changeMind));
    if (p.language.trim() && p.language.trim() !== "zh" && p.language.trim() !== "en")
      errors[`p${i}.language`] = { key: "seeds.errLanguage", values: { value: p.language } };
  });
  goals.forEach((g, i) => {
    if (!ID_RE.test(g.id)) errors[`g${i}.id`] = { key: "form.errId" };
    else if (seen.has(`g:${g.id}`)) errors[`g${i}.id`] = { key: "form.errDuplicate" };
    seen.add(`g:${g.id}`);
    if (!g.title.trim()) errors[`g${i}.title`] = { key: "form.errRequired" };
    const keys = new Set<string>();
    g.slots.forEach((s, j) => {
      if (!s.key.trim()) errors[`g${i}.slot${j}`] = { key: "seeds.errSlotKey" };
      else if (keys.has(s.key.trim())) errors[`g${i}.slot${j}`] = { key: "seeds.errSlotDuplicate" };
      else if (s.json && jsonProblem(s.value)) errors[`g${i}.slot${j}`] = { key: "seeds.errSlotJson" };
      keys.add(s.key.trim());
    });
  });
  return errors;
}

export type SeedImport = { personas: PersonaDraft[]; goals: GoalDraft[] };

/** Thrown when a seed file cannot be read; `key` is under `seeds.`. */
export class SeedImportError extends Error {
  constructor(
    readonly key: string,
    readonly detail: string,
    /** Where a JSON error is (1-based) and what it is (`seeds.jsonProblem.<code>`). */
    readonly at?: { line: number; column: number; code: string },
  ) {
    super(detail);
  }
}

/** The first error of strict JSON (no comments, no trailing comma), placed. */
export function jsonProblem(text: string): { line: number; column: number; code: string } | null {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return null;
  const before = text.slice(0, first.offset).split("\n");
  return { line: before.length, column: (before[before.length - 1]?.length ?? 0) + 1, code: printParseErrorCode(first.error) };
}

/** Whether a file is JSON: by its name, else by its first character. */
function isJson(text: string, fileName?: string): boolean {
  if (fileName) return /\.json$/i.test(fileName);
  return /^\s*[[{]/.test(text);
}

/**
 * Reads a seed set (`{personas, goals}`, or `{seed_set: {...}}`): a `.json`
 * file (or, unnamed, text that starts like JSON) as strict JSON, anything
 * else as YAML.
 */
export function parseSeedFile(text: string, fileName?: string): SeedImport {
  let doc: unknown;
  if (isJson(text, fileName)) {
    const at = jsonProblem(text);
    if (at) throw new SeedImportError("importJson", "", at);
    doc = JSON.parse(text);
  } else {
    try {
      doc = YAML.parse(text);
    } catch (e) {
      throw new SeedImportError("importSyntax", e instanceof Error ? e.message : String(e));
    }
  }
  if (isObject(doc) && isObject(doc.seed_set)) doc = doc.seed_set;
  if (!isObject(doc)) throw new SeedImportError("importShape", "");
  const personas = doc.personas ?? [];
  const goals = doc.goals ?? [];
  if (!Array.isArray(personas) || !Array.isArray(goals)) throw new SeedImportError("importShape", "");
  if (personas.length === 0 && goals.length === 0) throw new SeedImportError("importEmpty", "");
  const bad = [...personas, ...goals].findIndex((x) => !isObject(x));
  if (bad >= 0) throw new SeedImportError("importShape", "");
  return {
    personas: personas.map((p) => personaDraft(p as JsonObject)),
    goals: goals.map((g) => goalDraft(g as JsonObject)),
  };
}

export type SeedFormat = "json" | "yaml";

/** The seed set as a file's text. */
export function seedFileText(personas: PersonaDraft[], goals: GoalDraft[], format: SeedFormat): string {
  const set = seedSetValue(personas, goals);
  return format === "json" ? `${JSON.stringify(set, null, 2)}\n` : YAML.stringify(set);
}
