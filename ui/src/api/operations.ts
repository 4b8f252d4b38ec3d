// The backend's operations, each declared once: the API operation it is
// (its method and path are generated from the server's OpenAPI document,
// operations.generated.ts), the desktop command it is (typed by the
// generated bindings), and how the method's arguments fill each. Both
// backends implement every one of them through one generic call
// (`implement`), so that an operation is added here alone.

import {
  commands,
  type CreateCampaign,
  type CreateReview,
  type CreateSession,
  type ExploreRequest,
  type ImportedQuery,
  type Lang,
  type NextPeriod,
  type RunQuery,
  type SaveScenarioFile,
  type SessionQuery,
  type SubmitLabel,
  type SubmitRunLabel,
  type TargetSettings,
} from "../bindings";
import type { CloseSession } from "./exploration";
import { operations, type OperationId } from "./operations.generated";
import { queryString } from "./paging";

type Commands = typeof commands;
/** A desktop command, by its name in the bindings. */
export type CommandName = keyof Commands;
/** What a command answers when it succeeds. */
type CommandData<C extends CommandName> = Extract<Awaited<ReturnType<Commands[C]>>, { status: "ok" }>["data"];

type PathParam<O extends OperationId> = (typeof operations)[O]["pathParams"][number];
type QueryParam<O extends OperationId> = (typeof operations)[O]["query"][number];
type QueryValue = string | number | boolean | null | undefined | readonly unknown[];

/**
 * A body sent as it is (`text/plain`), not as JSON: the text of an OTLP
 * file to import.
 */
export class TextBody {
  constructor(readonly text: string) {}
}

/** An HTTP call: its path parameters, query and body. */
export type HttpParts<O extends OperationId> = ([PathParam<O>] extends [never]
  ? { path?: undefined }
  : { path: Record<PathParam<O>, string> }) & {
  query?: { [K in QueryParam<O>]?: QueryValue };
  body?: unknown;
};

/** An HTTP call of some operation. */
export type AnyHttpParts = { path?: Record<string, string>; query?: Record<string, QueryValue>; body?: unknown };

/** One call, both ways: HTTP parts and the command's arguments. */
export type Parts = { http: AnyHttpParts; tauri: readonly unknown[] };

/** An operation of the backend: a method with arguments `A` answering `R`. */
export type Call<A extends unknown[], R> = {
  readonly operation: OperationId;
  readonly command: CommandName;
  readonly parts: (...args: A) => Parts;
  /** The method's signature (a type only). */
  readonly signature?: (...args: A) => Promise<R>;
};

/** Declares an operation: API operation `operation`, command `command`. */
function op<O extends OperationId, C extends CommandName, A extends unknown[]>(
  operation: O,
  command: C,
  parts: (...args: A) => { http: HttpParts<O>; tauri: Parameters<Commands[C]> },
): Call<A, CommandData<C>> {
  return { operation, command, parts };
}

export const calls = {
  /** Who the user is there and what their role may do. */
  whoami: op("whoami", "whoami", () => ({ http: {}, tauri: [] })),
  listTargets: op("list_targets", "listTargets", () => ({ http: {}, tauri: [false] })),
  getTarget: op("get_target", "getTarget", (id: string) => ({ http: { path: { id } }, tauri: [id] })),
  createTarget: op("create_target", "createTarget", (req: TargetSettings) => ({ http: { body: req }, tauri: [req] })),
  testTarget: op("test_target", "testTarget", (id: string) => ({ http: { path: { id }, body: {} }, tauri: [id] })),
  /** Targets including archived ones (with `archived_at`). */
  listAllTargets: op("list_targets", "listTargets", () => ({
    http: { query: { include_archived: true } },
    tauri: [true],
  })),
  updateTarget: op("update_target", "updateTarget", (id: string, req: TargetSettings) => ({
    http: { path: { id }, body: req },
    tauri: [id, req],
  })),
  /** Deletes a target, or archives it when a campaign uses it. */
  deleteTarget: op("delete_target", "deleteTarget", (id: string) => ({ http: { path: { id } }, tauri: [id] })),
  /** Starts virtual-user sessions on chosen (or all uncovered) cells. */
  explore: op("explore", "explore", (req: ExploreRequest) => ({ http: { body: req }, tauri: [req] })),
  /** Which model plays each role, or the offline engine that does. */
  roleModelsView: op("role_models", "roleModelsView", () => ({ http: {}, tauri: [] })),
  listScenarios: op("list_scenarios", "listScenarios", () => ({ http: {}, tauri: [] })),
  listCampaigns: op("list_campaigns", "listCampaigns", () => ({ http: {}, tauri: [] })),
  /** Each campaign's headline figures for the campaign list, from the tallies. */
  campaignSummaries: op("campaign_summaries", "campaignSummaries", () => ({ http: {}, tauri: [] })),
  getCampaign: op("get_campaign", "getCampaign", (id: string) => ({ http: { path: { id } }, tauri: [id] })),
  createCampaign: op("create_campaign", "createCampaign", (req: CreateCampaign) => ({ http: { body: req }, tauri: [req] })),
  finalizeCampaign: op("finalize_campaign", "finalizeCampaign", (id: string) => ({
    http: { path: { id }, body: {} },
    tauri: [id],
  })),
  campaignReport: op("campaign_report", "campaignReport", (id: string) => ({ http: { path: { id } }, tauri: [id] })),
  /** A regression scenario drafted from a session's judge finding (at `turn`, else its poorest); nothing is written. */
  draftRegression: op(
    "draft_regression",
    "draftRegression",
    (sessionId: string, turn: number | null, pack: string | null, lang: Lang) => ({
      http: { path: { id: sessionId }, query: { lang, turn, pack } },
      tauri: [sessionId, turn, pack, lang],
    }),
  ),
  /** Saves a pack file among the user's packs once it loads; the scenarios it holds. */
  saveScenarioFile: op("save_scenario_file", "saveScenarioFile", (req: SaveScenarioFile) => ({
    http: { body: req },
    tauri: [req],
  })),
  /** Imports OTLP/JSON text (a collector's file) as the production of a target: what was kept, redacted and skipped. */
  importTraces: op(
    "import_traces",
    "importTraces",
    (text: string, targetId: string | null, redact: boolean, source: string | null) => ({
      http: { query: { target_id: targetId, redact, source }, body: new TextBody(text) },
      tauri: [text, targetId, redact, source],
    }),
  ),
  /** A page of the imported production conversations, newest first, with a preview each. */
  listConversations: op("list_conversations", "listConversations", (query: ImportedQuery) => ({ http: { query }, tauri: [query] })),
  /** One imported conversation, whole: messages, tool calls, traces. */
  getConversation: op("get_conversation", "getConversation", (id: string) => ({ http: { path: { id } }, tauri: [id] })),
  /** A fixed scenario drafted from an imported conversation (a pack file to review); nothing is written. */
  draftFromConversation: op("draft_from_conversation", "draftFromConversation", (id: string, pack: string | null, lang: Lang) => ({
    http: { path: { id }, query: { pack, lang } },
    tauri: [id, pack, lang],
  })),
  /** Personas and goals proposed from imported conversations, each with its traces as lineage. */
  proposeSeeds: op("propose_seeds", "proposeSeeds", (ids: string[], lang: Lang) => ({
    http: { query: { lang }, body: { ids } },
    tauri: [ids, lang],
  })),
  /** Campaign `id` beside `baseline`, another campaign of the same target. */
  compareCampaigns: op("compare_campaigns", "compareCampaigns", (id: string, baseline: string) => ({
    http: { path: { id }, query: { with: baseline } },
    tauri: [id, baseline],
  })),
  sessionMessages: op("session_messages", "sessionMessages", (sessionId: string) => ({
    http: { path: { id: sessionId } },
    tauri: [sessionId],
  })),
  createSession: op("create_session", "createSession", (req: CreateSession) => ({ http: { body: req }, tauri: [req] })),
  sendMessage: op("send_message", "sendMessage", (sessionId: string, content: string) => ({
    http: { path: { id: sessionId }, body: { content } },
    tauri: [sessionId, { content }],
  })),
  closeSession: op("close_session", "closeSession", (sessionId: string, record: CloseSession) => ({
    http: { path: { id: sessionId }, body: record },
    tauri: [sessionId, record],
  })),
  /** Ends a running session as abandoned: no record, its budget slot given back. */
  discardSession: op("discard_session", "discardSession", (sessionId: string) => ({
    http: { path: { id: sessionId } },
    tauri: [sessionId],
  })),
  listRuns: op("list_runs", "listRuns", (campaignId: string) => ({ http: { path: { id: campaignId } }, tauri: [campaignId] })),
  getRun: op("get_run", "getRun", (runId: string) => ({ http: { path: { id: runId } }, tauri: [runId] })),
  runTurns: op("run_turns", "runTurns", (runId: string) => ({ http: { path: { id: runId } }, tauri: [runId] })),
  addReview: op("add_review", "addReview", (req: CreateReview) => ({ http: { body: req }, tauri: [req] })),
  /** The next judged sessions nobody labelled, without the judge's scores. */
  blindQueue: op("blind_queue", "blindQueue", (campaignId: string, limit?: number) => ({
    http: { path: { id: campaignId }, query: { limit } },
    tauri: [campaignId, limit ?? null],
  })),
  /** Stores a blind label; the answer reveals the judge's scores. */
  submitLabel: op("submit_label", "submitLabel", (req: SubmitLabel) => ({ http: { body: req }, tauri: [req] })),
  /** The next fixed runs with rubric checks nobody labelled, without the judge's scores. */
  blindRunQueue: op("blind_run_queue", "blindRunQueue", (campaignId: string, limit?: number) => ({
    http: { path: { id: campaignId }, query: { limit } },
    tauri: [campaignId, limit ?? null],
  })),
  /** Stores a blind label of a run's rubric checks; the answer reveals the judge's scores. */
  submitRunLabel: op("submit_run_label", "submitRunLabel", (req: SubmitRunLabel) => ({ http: { body: req }, tauri: [req] })),
  /** Judge-human agreement per criterion (kappa with its interval). */
  judgeCalibration: op("judge_calibration", "judgeCalibration", (campaignId: string) => ({
    http: { path: { id: campaignId } },
    tauri: [campaignId],
  })),
  /** An analyst model writes in `lang`; the template analysis reads in any language. */
  generateAnalysis: op("campaign_analysis", "generateAnalysis", (campaignId: string, lang: Lang) => ({
    http: { path: { id: campaignId }, query: { lang }, body: {} },
    tauri: [campaignId, lang],
  })),
  /** What the following period would run: its window, runs and added regressions. */
  nextPeriodPlan: op("next_period_plan", "nextPeriodPlan", (campaignId: string) => ({
    http: { path: { id: campaignId } },
    tauri: [campaignId],
  })),
  /** The following period; `req.name`, else named after this one in `lang`. */
  nextPeriod: op("next_period", "nextPeriod", (campaignId: string, req: NextPeriod, lang: Lang) => ({
    http: { path: { id: campaignId }, query: { lang }, body: req },
    tauri: [campaignId, req, lang],
  })),
  /** The resident patrol agent: paused or not, last and next wake-up. */
  patrolStatus: op("patrol_agent_status", "patrolStatus", () => ({ http: {}, tauri: [] })),
  pausePatrol: op("pause_patrol_agent", "pausePatrol", () => ({ http: { body: {} }, tauri: [] })),
  resumePatrol: op("resume_patrol_agent", "resumePatrol", () => ({ http: { body: {} }, tauri: [] })),
  /** One page of a campaign's runs, filtered by verdict, scenario and tag. */
  searchRuns: op("search_runs", "searchRuns", (campaignId: string, query: RunQuery) => ({
    http: { path: { id: campaignId }, query },
    tauri: [campaignId, query],
  })),
  /** One page of a campaign's sessions, filtered by status, seeds or ids. */
  searchSessions: op("search_sessions", "searchSessions", (campaignId: string, query: SessionQuery) => ({
    http: { path: { id: campaignId }, query },
    tauri: [campaignId, query],
  })),
  /** Every rating of a run or session, newest first. */
  listReviews: op("list_reviews", "listReviews", (subjectId: string) => ({
    http: { query: { subject_id: subjectId } },
    tauri: [subjectId],
  })),
};

/** The backend's methods that are one operation each. */
export type Calls = { [K in keyof typeof calls]: NonNullable<(typeof calls)[K]["signature"]> };

/** Some operation, its arguments erased. */
export type AnyCall = Omit<Call<never[], unknown>, "parts"> & { readonly parts: (...args: never[]) => Parts };

/**
 * Every method of `Calls`, each sending its operation with `send` (an
 * HTTP request, or a command's invocation).
 */
export function implement(send: (call: AnyCall, parts: Parts) => Promise<unknown>): Calls {
  const methods: Record<string, (...args: never[]) => Promise<unknown>> = {};
  for (const [name, call] of Object.entries(calls) as [string, AnyCall][]) {
    methods[name] = (...args) => send(call, call.parts(...args));
  }
  return methods as Calls;
}

/** The method, path and query string of an HTTP call. */
export function httpTarget<O extends OperationId>(operation: O, parts: HttpParts<O>): { method: string; path: string } {
  return httpRequest(operation, parts);
}

/** The method, path and query string of a call of some operation. */
export function httpRequest(operation: OperationId, parts: AnyHttpParts): { method: string; path: string } {
  const route = operations[operation];
  const params: Partial<Record<string, string>> = parts.path ?? {};
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
  const q = queryString(parts.query ?? {});
  return { method: route.method, path: q ? `${path}?${q}` : path };
}
