// The only module the UI uses to talk to the backend. The transport is
// chosen once at start-up: the Tauri bindings inside the desktop app, the
// HTTP API on the same origin in a browser.

import type { Backend } from "./backend";
import { HttpBackend, initialApiKey } from "./http";
import { TauriBackend } from "./tauri";

export type { Backend, BackendInfo } from "./backend";
export { ApiError, asApiError } from "./errors";
export * from "./exploration";
export type { LiveEvent, LiveListener } from "./live";
export type { RunPage, RunQuery, SessionPage, SessionQuery } from "../bindings";
export type {
  Analysis,
  BlindItem,
  BlindQueue,
  BlindRubric,
  BlindRunItem,
  BlindRunQueue,
  RevealedRubric,
  RunLabelRevealed,
  CriterionCalibration,
  CriterionConsistency,
  CriterionScores,
  JudgeCalibration,
  JudgePolicy,
  LabelRevealed,
  Campaign,
  CheckResult,
  HumanReview,
  PeriodComparison,
  Run,
  RunTurn,
  Verdict,
  CampaignReport,
  CampaignStatus,
  ChannelConfig,
  CoverageGrid,
  CreateCampaign,
  CreateTarget,
  ErrorBody,
  ExploreRequest,
  ExploreStarted,
  PlayedBy,
  RoleModelsView,
  RoleView,
  SeedCell,
  Tally,
  TargetRemoval,
  UpdateTarget,
  ErrorCode,
  ExportFormat,
  FixedSummary,
  Goal,
  KeyStorage,
  Language,
  PatrolStatus,
  Persona,
  Plan,
  PlanEntry,
  RoleModel,
  Trigger,
  ScenarioSummary,
  SeedSet,
  Settings,
  Target,
  TargetProbe,
} from "../bindings";

function inTauri(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}

const http = inTauri() ? null : new HttpBackend(initialApiKey());

export const api: Backend = http ?? new TauriBackend();

/** In browser mode: whether a key is known, and how to set it. */
export const apiKey = {
  needed: (): boolean => http !== null,
  set: (key: string): void => http?.setKey(key),
};
