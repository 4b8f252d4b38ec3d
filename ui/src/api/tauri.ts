import { save } from "@tauri-apps/plugin-dialog";
import { revealItemInDir } from "@tauri-apps/plugin-opener";
import {
  commands,
  events,
  type Analysis,
  type Campaign,
  type CreateReview,
  type HumanReview,
  type Run,
  type RunTurn,
  type CampaignReport,
  type CreateCampaign,
  type CreateTarget,
  type ErrorBody,
  type ExportFormat,
  type PatrolStatus,
  type ScenarioSummary,
  type Settings,
  type Target,
  type TargetProbe,
  type RunPage,
  type RunQuery,
  type SessionPage,
  type SessionQuery,
} from "../bindings";
import type { Backend, BackendInfo } from "./backend";
import { ApiError } from "./errors";
import type { CloseSession, ExplorationSession, MessageReply, SessionTranscript } from "./exploration";
import { EventHub, type LiveListener } from "./live";
import { rememberReview, rememberedReview } from "./paging";
import type { CreateSessionRequest, ExploreRequest, ExploreStarted, ListedTarget, RoleModelsView, TargetRemoval, UpdateTarget } from "./pending";
import { invoke } from "@tauri-apps/api/core";
import { toErrorBody } from "./errors";

/** A command whose generated binding has not landed yet. */
async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (e) {
    const body = toErrorBody(e);
    if (body) throw new ApiError(body);
    throw e;
  }
}

type CommandResult<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorBody };

async function unwrap<T>(call: Promise<CommandResult<T>>): Promise<T> {
  const r = await call;
  if (r.status === "error") throw new ApiError(r.error);
  return r.data;
}

const EXTENSIONS: Record<ExportFormat, string> = { md: "md", json: "json", csv: "csv", sessions_csv: "csv", junit: "xml" };

/** The desktop app: commands through the generated bindings, live events. */
export class TauriBackend implements Backend {
  readonly mode = "desktop" as const;

  async info(): Promise<BackendInfo> {
    const i = await unwrap(commands.appInfo());
    return {
      mode: "desktop",
      version: i.version,
      dataDir: i.data_dir,
      logDir: i.log_dir,
      scenariosLoaded: i.scenarios_loaded,
      scenarioErrors: i.scenario_errors,
      keyStorage: i.key_storage,
    };
  }
  listTargets(): Promise<Target[]> {
    return unwrap(commands.listTargets());
  }
  createTarget(req: CreateTarget): Promise<Target> {
    return unwrap(commands.createTarget(req));
  }
  testTarget(id: string): Promise<TargetProbe> {
    return unwrap(commands.testTarget(id));
  }
  listAllTargets(): Promise<ListedTarget[]> {
    return call<ListedTarget[]>("list_targets", { includeArchived: true });
  }
  updateTarget(id: string, req: UpdateTarget): Promise<Target> {
    return call<Target>("update_target", { id, req });
  }
  deleteTarget(id: string): Promise<TargetRemoval> {
    return call<TargetRemoval>("delete_target", { id });
  }
  explore(req: ExploreRequest): Promise<ExploreStarted> {
    return call<ExploreStarted>("explore", { req });
  }
  roleModelsView(): Promise<RoleModelsView> {
    return call<RoleModelsView>("role_models_view");
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
  exportCampaign(id: string, format: ExportFormat): Promise<string> {
    return unwrap(commands.exportCampaign(id, format));
  }
  async saveExport(id: string, format: ExportFormat, fileName: string): Promise<boolean> {
    const path = await save({
      defaultPath: fileName,
      filters: [{ name: format.toUpperCase(), extensions: [EXTENSIONS[format]] }],
    });
    if (!path) return false;
    await unwrap(commands.saveExport(id, format, path));
    return true;
  }
  listSessions(campaignId: string): Promise<ExplorationSession[]> {
    return unwrap(commands.listSessions(campaignId));
  }
  sessionMessages(sessionId: string): Promise<SessionTranscript> {
    return unwrap(commands.sessionMessages(sessionId));
  }
  createSession(req: CreateSessionRequest): Promise<ExplorationSession> {
    return call<ExplorationSession>("create_session", { req });
  }
  sendMessage(sessionId: string, content: string): Promise<MessageReply> {
    return unwrap(commands.sendMessage(sessionId, { content }));
  }
  closeSession(sessionId: string, record: CloseSession): Promise<ExplorationSession> {
    return unwrap(commands.closeSession(sessionId, record));
  }
  listRuns(campaignId: string): Promise<Run[]> {
    return unwrap(commands.listRuns(campaignId));
  }
  runTurns(runId: string): Promise<RunTurn[]> {
    return unwrap(commands.runTurns(runId));
  }
  async addReview(req: CreateReview): Promise<HumanReview> {
    const review = await unwrap(commands.addReview(req));
    rememberReview(review);
    return review;
  }
  generateAnalysis(campaignId: string): Promise<Analysis> {
    return unwrap(commands.generateAnalysis(campaignId));
  }
  nextPeriod(campaignId: string): Promise<Campaign> {
    return unwrap(commands.nextPeriod(campaignId));
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
  private readonly hub = new EventHub((emit) => {
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
  });
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
  async latestReview(subjectId: string) {
    const list = generated<[string], HumanReview[]>("listReviews");
    const last = list ? (await unwrap(list(subjectId))).at(-1) : undefined;
    if (last) return { rating: last.rating, comment: last.comment, created_at: last.created_at };
    return rememberedReview(subjectId);
  }
}

/** A generated command that may not exist in this build's bindings yet. */
function generated<A extends unknown[], T>(name: string): ((...args: A) => Promise<CommandResult<T>>) | null {
  const fn: unknown = Reflect.get(commands, name);
  return typeof fn === "function" ? (fn as (...args: A) => Promise<CommandResult<T>>) : null;
}
