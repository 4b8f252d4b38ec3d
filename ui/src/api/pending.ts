// Types of operations whose generated bindings have not landed yet, written
// exactly as the API contract names them. Each one moves to bindings.ts
// (and out of this file) when the backend exports it.

import type { CreateSession, ErrorBody, ExplorationSession, Target, Trigger, CreateTarget } from "../bindings";

/** Who played the user in a session. */
export type PlayedBy = "person" | "assistant" | "builtin" | "model";

export type SeedCell = { persona_id: string; goal_id: string };

export type ExploreRequest = {
  campaign_id: string;
  /** None/empty = every persona x goal cell with no session yet. */
  cells?: SeedCell[] | null;
  trigger?: Trigger | null;
};

export type ExploreStarted = {
  sessions: ExplorationSession[];
  played_by: PlayedBy;
  /** Why the rest was not started. */
  refused?: ErrorBody | null;
};

export type RoleView = { model?: string | null; host?: string | null; fallback: string };
export type RoleModelsView = { virtual_user: RoleView; judge: RoleView; analyst: RoleView };

export type UpdateTarget = CreateTarget;
export type TargetRemoval = { id: string; outcome: "deleted" | "archived" };

/** A manual session names who plays the user. */
export type CreateSessionRequest = CreateSession & { played_by?: PlayedBy | null };

/** A target as listed, with its archive date once archived. */
export type ListedTarget = Target & { archived_at?: string | null };

/** Who played the user in a session, when the backend says it. */
export function playedByOf(s: ExplorationSession): PlayedBy | null {
  const v: unknown = Reflect.get(s, "played_by");
  return v === "person" || v === "assistant" || v === "builtin" || v === "model" ? v : null;
}

/** The model that played the user, when a model did. */
export function userModelOf(s: ExplorationSession): string | null {
  const v: unknown = Reflect.get(s, "user_model");
  return typeof v === "string" ? v : null;
}

/** The probe's advice, once the backend gives one. */
export function probeSuggestion(p: object): string | null {
  const v: unknown = Reflect.get(p, "suggestion");
  return typeof v === "string" && v ? v : null;
}

/** The probe's plain-words message, once the backend gives one. */
export function probeMessage(p: object): string | null {
  const v: unknown = Reflect.get(p, "message");
  return typeof v === "string" && v ? v : null;
}
