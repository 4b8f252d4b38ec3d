import type {
  Analysis,
  Campaign,
  CreateReview,
  HumanReview,
  Run,
  RunTurn,
  CampaignReport,
  CreateCampaign,
  CreateTarget,
  ExportFormat,
  KeyStorage,
  PatrolStatus,
  ScenarioSummary,
  Settings,
  Target,
  TargetProbe,
} from "../bindings";
import type { CloseSession, CreateSession, ExplorationSession, MessageReply, SessionTranscript } from "./exploration";

/** Facts about the running backend shown on the settings page. */
export type BackendInfo = {
  mode: "desktop" | "browser";
  version: string;
  dataDir?: string;
  logDir?: string;
  scenariosLoaded?: number;
  scenarioErrors?: string[];
  /** Where role-model and API keys are kept (desktop only). */
  keyStorage?: KeyStorage;
};

/** Everything the UI asks of the backend. Errors are thrown as ApiError. */
export interface Backend {
  readonly mode: "desktop" | "browser";
  info(): Promise<BackendInfo>;
  listTargets(): Promise<Target[]>;
  createTarget(req: CreateTarget): Promise<Target>;
  testTarget(id: string): Promise<TargetProbe>;
  listScenarios(): Promise<ScenarioSummary[]>;
  listCampaigns(): Promise<Campaign[]>;
  getCampaign(id: string): Promise<Campaign>;
  createCampaign(req: CreateCampaign): Promise<Campaign>;
  finalizeCampaign(id: string): Promise<Campaign>;
  campaignReport(id: string): Promise<CampaignReport>;
  exportCampaign(id: string, format: ExportFormat): Promise<string>;
  /** Saves the export where the user says; false when the user cancelled. */
  saveExport(id: string, format: ExportFormat, fileName: string): Promise<boolean>;
  listSessions(campaignId: string): Promise<ExplorationSession[]>;
  sessionMessages(sessionId: string): Promise<SessionTranscript>;
  createSession(req: CreateSession): Promise<ExplorationSession>;
  sendMessage(sessionId: string, content: string): Promise<MessageReply>;
  closeSession(sessionId: string, record: CloseSession): Promise<ExplorationSession>;
  listRuns(campaignId: string): Promise<Run[]>;
  runTurns(runId: string): Promise<RunTurn[]>;
  addReview(req: CreateReview): Promise<HumanReview>;
  generateAnalysis(campaignId: string): Promise<Analysis>;
  nextPeriod(campaignId: string): Promise<Campaign>;
  /** `null` when the backend keeps no editable settings (browser mode). */
  getSettings(): Promise<Settings | null>;
  updateSettings(settings: Settings): Promise<Settings>;
  /** The resident patrol agent: paused or not, last and next wake-up. */
  patrolStatus(): Promise<PatrolStatus>;
  pausePatrol(): Promise<PatrolStatus>;
  resumePatrol(): Promise<PatrolStatus>;
  /** Shows a folder of the local machine in the file manager (desktop only). */
  reveal(path: string): Promise<void>;
  /** Calls `onChange` whenever data may have changed; returns the unsubscribe. */
  subscribe(onChange: () => void): () => void;
}
