// The only module the UI uses to talk to the backend. The transport is
// chosen once at start-up: the Tauri bindings inside the desktop app, the
// HTTP API on the same origin in a browser.

import type { Backend } from "./backend";
import { BrowserTransport } from "./browser";
import { HttpBackend } from "./http";
import { RemoteTransport, teamServer } from "./remote";
import { TauriBackend } from "./tauri";

export type { Backend, BackendInfo, BackendMode } from "./backend";
export { database, type DatabaseState } from "./database";
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
  Identity,
  ApiKeyRole,
  ServerConnection,
  PeriodComparison,
  PeriodDelta,
  Run,
  RunTurn,
  Step,
  StepAnswer,
  ToolCall,
  ToolError,
  DocumentText,
  Verdict,
  CampaignReport,
  CampaignStatus,
  CampaignSummary,
  ChannelConfig,
  CoverageGrid,
  SideBySide,
  RegressionDraft,
  SaveScenarioFile,
  ScenarioComparison,
  CampaignSide,
  NextPeriod,
  EvidenceNames,
  CreateCampaign,
  TargetSettings,
  ErrorBody,
  ExploreRequest,
  ExploreStarted,
  PlayedBy,
  RoleModelsView,
  RoleView,
  SeedCell,
  Tally,
  TargetRemoval,
  ErrorCode,
  ExportFormat,
  FixedSummary,
  GroupTasks,
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
  Arg,
  Msg,
  Text,
  ChatMessage,
  ImportProblem,
  ImportSummary,
  ImportedConversation,
  ImportedConversationSummary,
  ImportedPage,
  ImportedQuery,
  TraceDraft,
  TraceLineage,
  SeedProposal,
  SeedProposer,
  Lang,
} from "../bindings";

function inTauri(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}

const browser = inTauri() ? null : new BrowserTransport();

/** The backend, chosen once by `startApi` before the UI renders. */
export let api: Backend = browser ? new HttpBackend("browser", browser) : new TauriBackend();

/**
 * Chooses the transport: the HTTP API on the same origin in a browser; in
 * the desktop app its own database, or the team server it is connected to.
 */
export async function startApi(): Promise<void> {
  if (browser) return;
  try {
    const server = await teamServer.current();
    if (server) api = new HttpBackend("server", new RemoteTransport(), server);
  } catch {
    // The app's own database stays in use; Settings shows the connection.
  }
}

/** The team server of the desktop app (`null` in a browser). */
export const desktopConnection = inTauri() ? teamServer : null;

/** In a browser: whether a key is known, and how to set or forget it. */
export const apiKey = {
  needed: (): boolean => browser !== null,
  given: (): boolean => browser?.hasKey() ?? false,
  set: (key: string): void => browser?.setKey(key),
  forget: (): void => browser?.forgetKey(),
};
