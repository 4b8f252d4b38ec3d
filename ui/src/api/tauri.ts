import { save } from "@tauri-apps/plugin-dialog";
import { revealItemInDir } from "@tauri-apps/plugin-opener";
import {
  commands,
  events,
  type Analysis,
  type Campaign,
  type BlindQueue,
  type BlindRunQueue,
  type RunLabelRevealed,
  type SubmitRunLabel,
  type CreateReview,
  type JudgeCalibration,
  type LabelRevealed,
  type SubmitLabel,
  type HumanReview,
  type Identity,
  type Run,
  type RunTurn,
  type CampaignReport,
  type CreateCampaign,
  type CreateSession,
  type TargetSettings,
  type ErrorBody,
  type ExploreRequest,
  type ExploreStarted,
  type RoleModelsView,
  type TargetRemoval,
  type ExportFormat,
  type Lang,
  type PatrolStatus,
  type ScenarioSummary,
  type Settings,
  type Target,
  type TargetProbe,
  type RunPage,
  type RunQuery,
  type SessionPage,
  type SessionQuery,
  NextPeriod,
  SideBySide,
  RegressionDraft,
  SaveScenarioFile,
} from "../bindings";
import type { Backend, BackendInfo } from "./backend";
import { ApiError } from "./errors";
import type { CloseSession, ExplorationSession, MessageReply, SessionTranscript } from "./exploration";
import { EventHub, type Connector, type LiveListener } from "./live";

type CommandResult<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorBody };

export async function unwrap<T>(call: Promise<CommandResult<T>>): Promise<T> {
  const r = await call;
  if (r.status === "error") throw new ApiError(r.error);
  return r.data;
}

export const EXTENSIONS: Record<ExportFormat, string> = { md: "md", json: "json", csv: "csv", sessions_csv: "csv", junit: "xml" };

/** The app's own live events (`platform-event`), a team server's too when connected. */
export const tauriConnector: Connector = (emit) => {
  let stop: (() => void) | null = null;
  let cancelled = false;
  void events.platformEvent.listen((e) => emit(e.payload)).then((unlisten) => {
    if (cancelled) unlisten();
    else stop = unlisten;
  });
  return () => {
    cancelled = true;
    stop?.();
  };
};

/** The desktop app: commands through the generated bindings, live events. */
export class TauriBackend implements Backend {
  readonly mode = "desktop" as const;
  readonly server = null;

  async info(): Promise<BackendInfo> {
    const i = await unwrap(commands.appInfo());
    return {
      mode: "desktop",
      version: i.version,
      revision: i.revision,
      built: i.built,
      dataDir: i.data_dir,
      userPacksDir: i.user_packs_dir,
      logDir: i.log_dir,
      scenariosLoaded: i.scenarios_loaded,
      scenarioErrors: i.scenario_errors,
      keyStorage: i.key_storage,
    };
  }
  whoami(): Promise<Identity> {
    return unwrap(commands.whoami());
  }
  listTargets(): Promise<Target[]> {
    return unwrap(commands.listTargets(false));
  }
  createTarget(req: TargetSettings): Promise<Target> {
    return unwrap(commands.createTarget(req));
  }
  testTarget(id: string): Promise<TargetProbe> {
    return unwrap(commands.testTarget(id));
  }
  listAllTargets(): Promise<Target[]> {
    return unwrap(commands.listTargets(true));
  }
  updateTarget(id: string, req: TargetSettings): Promise<Target> {
    return unwrap(commands.updateTarget(id, req));
  }
  deleteTarget(id: string): Promise<TargetRemoval> {
    return unwrap(commands.deleteTarget(id));
  }
  explore(req: ExploreRequest): Promise<ExploreStarted> {
    return unwrap(commands.explore(req));
  }
  roleModelsView(): Promise<RoleModelsView> {
    return unwrap(commands.roleModelsView());
  }
  listScenarios(): Promise<ScenarioSummary[]> {
    return unwrap(commands.listScenarios());
  }
  listCampaigns(): Promise<Campaign[]> {
    return unwrap(commands.listCampaigns());
  }
  getCampaign(id: string): Promise<Campaign> {
    return unwrap(commands.getCampaign(id));
  }
  createCampaign(req: CreateCampaign): Promise<Campaign> {
    return unwrap(commands.createCampaign(req));
  }
  finalizeCampaign(id: string): Promise<Campaign> {
    return unwrap(commands.finalizeCampaign(id));
  }
  campaignReport(id: string): Promise<CampaignReport> {
    return unwrap(commands.campaignReport(id));
  }
  draftRegression(sessionId: string, turn: number | null, pack: string | null, lang: Lang): Promise<RegressionDraft> {
    return unwrap(commands.draftRegression(sessionId, turn, pack, lang));
  }
  saveScenarioFile(req: SaveScenarioFile): Promise<ScenarioSummary[]> {
    return unwrap(commands.saveScenarioFile(req));
  }
  compareCampaigns(id: string, baseline: string): Promise<SideBySide> {
    return unwrap(commands.compareCampaigns(id, baseline));
  }
  exportCampaign(id: string, format: ExportFormat, lang: Lang): Promise<string> {
    return unwrap(commands.exportCampaign(id, format, lang));
  }
  async saveExport(id: string, format: ExportFormat, fileName: string, lang: Lang): Promise<boolean> {
    const path = await save({
      defaultPath: fileName,
      filters: [{ name: format.toUpperCase(), extensions: [EXTENSIONS[format]] }],
    });
    if (!path) return false;
    await unwrap(commands.saveExport(id, format, path, lang));
    return true;
  }
  listSessions(campaignId: string): Promise<ExplorationSession[]> {
    return unwrap(commands.listSessions(campaignId));
  }
  sessionMessages(sessionId: string): Promise<SessionTranscript> {
    return unwrap(commands.sessionMessages(sessionId));
  }
  createSession(req: CreateSession): Promise<ExplorationSession> {
    return unwrap(commands.createSession(req));
  }
  sendMessage(sessionId: string, content: string): Promise<MessageReply> {
    return unwrap(commands.sendMessage(sessionId, { content }));
  }
  closeSession(sessionId: string, record: CloseSession): Promise<ExplorationSession> {
    return unwrap(commands.closeSession(sessionId, record));
  }
  discardSession(sessionId: string): Promise<ExplorationSession> {
    return unwrap(commands.discardSession(sessionId));
  }
  listRuns(campaignId: string): Promise<Run[]> {
    return unwrap(commands.listRuns(campaignId));
  }
  runTurns(runId: string): Promise<RunTurn[]> {
    return unwrap(commands.runTurns(runId));
  }
  addReview(req: CreateReview): Promise<HumanReview> {
    return unwrap(commands.addReview(req));
  }
  blindQueue(campaignId: string, limit?: number): Promise<BlindQueue> {
    return unwrap(commands.blindQueue(campaignId, limit ?? null));
  }
  submitLabel(req: SubmitLabel): Promise<LabelRevealed> {
    return unwrap(commands.submitLabel(req));
  }
  blindRunQueue(campaignId: string, limit?: number): Promise<BlindRunQueue> {
    return unwrap(commands.blindRunQueue(campaignId, limit ?? null));
  }
  submitRunLabel(req: SubmitRunLabel): Promise<RunLabelRevealed> {
    return unwrap(commands.submitRunLabel(req));
  }
  judgeCalibration(campaignId: string): Promise<JudgeCalibration> {
    return unwrap(commands.judgeCalibration(campaignId));
  }
  generateAnalysis(campaignId: string, lang: Lang): Promise<Analysis> {
    return unwrap(commands.generateAnalysis(campaignId, lang));
  }
  nextPeriod(campaignId: string, req: NextPeriod, lang: Lang): Promise<Campaign> {
    return unwrap(commands.nextPeriod(campaignId, req, lang));
  }
  getSettings(): Promise<Settings | null> {
    return unwrap(commands.getSettings());
  }
  updateSettings(settings: Settings): Promise<Settings> {
    return unwrap(commands.updateSettings(settings));
  }
  patrolStatus(): Promise<PatrolStatus> {
    return unwrap(commands.patrolStatus());
  }
  pausePatrol(): Promise<PatrolStatus> {
    return unwrap(commands.pausePatrol());
  }
  resumePatrol(): Promise<PatrolStatus> {
    return unwrap(commands.resumePatrol());
  }
  async reveal(path: string): Promise<void> {
    try {
      await revealItemInDir(path);
    } catch (e) {
      throw new ApiError({
        code: "INTERNAL",
        message: `cannot show ${path}: ${String(e)}`,
        suggestion: "Open the folder from your file manager.",
        next_allowed_at: null,
      });
    }
  }
  private readonly hub = new EventHub(tauriConnector);
  subscribe(onChange: () => void): () => void {
    return this.hub.listen(() => onChange());
  }
  events(listener: LiveListener): () => void {
    return this.hub.listen(listener);
  }
  searchRuns(campaignId: string, query: RunQuery): Promise<RunPage> {
    return unwrap(commands.searchRuns(campaignId, query));
  }
  searchSessions(campaignId: string, query: SessionQuery): Promise<SessionPage> {
    return unwrap(commands.searchSessions(campaignId, query));
  }
  async latestReview(subjectId: string): Promise<HumanReview | null> {
    return (await unwrap(commands.listReviews(subjectId)))[0] ?? null;
  }
}
