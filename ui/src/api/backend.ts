import type {
  Analysis,
  Campaign,
  BlindQueue,
  BlindRunQueue,
  RunLabelRevealed,
  SubmitRunLabel,
  CreateReview,
  JudgeCalibration,
  LabelRevealed,
  SubmitLabel,
  HumanReview,
  Identity,
  Run,
  RunTurn,
  CampaignReport,
  CreateCampaign,
  CreateSession,
  TargetSettings,
  ExploreRequest,
  ExploreStarted,
  ExportFormat,
  Lang,
  KeyStorage,
  PatrolStatus,
  ScenarioSummary,
  Settings,
  Target,
  TargetProbe,
  TargetRemoval,
  RoleModelsView,
  RunPage,
  RunQuery,
  SessionPage,
  ServerConnection,
  SessionQuery,
  NextPeriod,
  SideBySide,
  RegressionDraft,
  SaveScenarioFile,
} from "../bindings";
import type { CloseSession, ExplorationSession, MessageReply, SessionTranscript } from "./exploration";
import type { LiveListener } from "./live";

/**
 * Where the UI works: the desktop app on its own database, a browser on
 * `agenteval serve`, or the desktop app connected to a team server.
 */
export type BackendMode = "desktop" | "browser" | "server";

/** Facts about the running backend shown on the settings page. */
export type BackendInfo = {
  mode: BackendMode;
  version: string;
  /** The git revision and the day of the build. */
  revision: string;
  built: string;
  dataDir?: string;
  /** Where the user's own scenario packs go (desktop only). */
  userPacksDir?: string;
  logDir?: string;
  scenariosLoaded?: number;
  scenarioErrors?: string[];
  /** Where role-model and API keys are kept (desktop only). */
  keyStorage?: KeyStorage;
  /** The team server the desktop app works on (mode `server`). */
  server?: ServerConnection;
};

/** Everything the UI asks of the backend. Errors are thrown as ApiError. */
export interface Backend {
  readonly mode: BackendMode;
  /** The team server the desktop app works on (mode `server`), else `null`. */
  readonly server: ServerConnection | null;
  info(): Promise<BackendInfo>;
  /** Who the user is there and what their role may do. */
  whoami(): Promise<Identity>;
  listTargets(): Promise<Target[]>;
  createTarget(req: TargetSettings): Promise<Target>;
  testTarget(id: string): Promise<TargetProbe>;
  /** Targets including archived ones (with `archived_at`). */
  listAllTargets(): Promise<Target[]>;
  updateTarget(id: string, req: TargetSettings): Promise<Target>;
  /** Deletes a target, or archives it when a campaign uses it. */
  deleteTarget(id: string): Promise<TargetRemoval>;
  /** Starts virtual-user sessions on chosen (or all uncovered) cells. */
  explore(req: ExploreRequest): Promise<ExploreStarted>;
  /** Which model plays each role, or the offline engine that does. */
  roleModelsView(): Promise<RoleModelsView>;
  listScenarios(): Promise<ScenarioSummary[]>;
  listCampaigns(): Promise<Campaign[]>;
  getCampaign(id: string): Promise<Campaign>;
  createCampaign(req: CreateCampaign): Promise<Campaign>;
  finalizeCampaign(id: string): Promise<Campaign>;
  campaignReport(id: string): Promise<CampaignReport>;
  /** A regression scenario drafted from a session's judge finding (at `turn`, else its poorest); nothing is written. */
  draftRegression(sessionId: string, turn: number | null, pack: string | null, lang: Lang): Promise<RegressionDraft>;
  /** Saves a pack file among the user's packs once it loads; the scenarios it holds. */
  saveScenarioFile(req: SaveScenarioFile): Promise<ScenarioSummary[]>;
  /** Campaign `id` beside `baseline`, another campaign of the same target. */
  compareCampaigns(id: string, baseline: string): Promise<SideBySide>;
  /** The export with the report's own words in `lang`. */
  exportCampaign(id: string, format: ExportFormat, lang: Lang): Promise<string>;
  /** Saves the export where the user says; false when the user cancelled. */
  saveExport(id: string, format: ExportFormat, fileName: string, lang: Lang): Promise<boolean>;
  listSessions(campaignId: string): Promise<ExplorationSession[]>;
  sessionMessages(sessionId: string): Promise<SessionTranscript>;
  createSession(req: CreateSession): Promise<ExplorationSession>;
  sendMessage(sessionId: string, content: string): Promise<MessageReply>;
  closeSession(sessionId: string, record: CloseSession): Promise<ExplorationSession>;
  /** Ends a running session as abandoned: no record, its budget slot given back. */
  discardSession(sessionId: string): Promise<ExplorationSession>;
  listRuns(campaignId: string): Promise<Run[]>;
  runTurns(runId: string): Promise<RunTurn[]>;
  addReview(req: CreateReview): Promise<HumanReview>;
  /** The next judged sessions nobody labelled, without the judge's scores. */
  blindQueue(campaignId: string, limit?: number): Promise<BlindQueue>;
  /** Stores a blind label; the answer reveals the judge's scores. */
  submitLabel(req: SubmitLabel): Promise<LabelRevealed>;
  /** The next fixed runs with rubric checks nobody labelled, without the judge's scores. */
  blindRunQueue(campaignId: string, limit?: number): Promise<BlindRunQueue>;
  /** Stores a blind label of a run's rubric checks; the answer reveals the judge's scores. */
  submitRunLabel(req: SubmitRunLabel): Promise<RunLabelRevealed>;
  /** Judge-human agreement per criterion (kappa with its interval). */
  judgeCalibration(campaignId: string): Promise<JudgeCalibration>;
  /** An analyst model writes in `lang`; the template analysis reads in any language. */
  generateAnalysis(campaignId: string, lang: Lang): Promise<Analysis>;
  /** The following period; `req.name`, else named after this one in `lang`. */
  nextPeriod(campaignId: string, req: NextPeriod, lang: Lang): Promise<Campaign>;
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
  /** Every platform event as it happens (`null`: something may have changed); returns the unsubscribe. */
  events(listener: LiveListener): () => void;
  /** One page of a campaign's runs, filtered by verdict, scenario and tag. */
  searchRuns(campaignId: string, query: RunQuery): Promise<RunPage>;
  /** One page of a campaign's sessions, filtered by status, seeds or ids. */
  searchSessions(campaignId: string, query: SessionQuery): Promise<SessionPage>;
  /** The newest rating of a run or session, or `null` when nobody rated it. */
  latestReview(subjectId: string): Promise<HumanReview | null>;
}
