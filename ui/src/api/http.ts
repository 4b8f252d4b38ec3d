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
  PatrolStatus,
  ScenarioSummary,
  Settings,
  Target,
  TargetProbe,
  TargetRemoval,
  RoleModelsView,
  RunPage,
  RunQuery,
  ServerConnection,
  SessionPage,
  SessionQuery,
  NextPeriod,
  SideBySide,
  RegressionDraft,
  SaveScenarioFile,
} from "../bindings";
import type { Backend, BackendInfo } from "./backend";
import { ApiError, toErrorBody } from "./errors";
import type { CloseSession, ExplorationSession, MessageReply, SessionTranscript } from "./exploration";
import { EventHub, type Connector, type LiveListener } from "./live";
import { queryString } from "./paging";

/** One answer of the API: its status and its body as text. */
export type Answer = { status: number; text: string };

/** How an HttpBackend reaches the API. */
export interface Transport {
  /** Sends one call; throws ApiError only when the server cannot be reached. */
  send(method: string, path: string, body?: unknown): Promise<Answer>;
  /** The live events' connection. */
  readonly connector: Connector;
  /**
   * Saves the answer of the GET `path` (an export) where the user says;
   * false when the user cancelled. `text` fetches it, errors checked.
   */
  save(path: string, format: ExportFormat, fileName: string, text: () => Promise<string>): Promise<boolean>;
}

/**
 * The HTTP API of `agenteval serve`: from a browser on the same origin
 * (`browser`), or from the desktop app connected to a team server
 * (`server`, each call sent by the app with the key it keeps).
 */
export class HttpBackend implements Backend {
  private readonly hub: EventHub;

  constructor(
    readonly mode: "browser" | "server",
    private readonly transport: Transport,
    readonly server: ServerConnection | null = null,
  ) {
    this.hub = new EventHub(transport.connector);
  }

  private async send(method: string, path: string, body?: unknown): Promise<Answer> {
    const res = await this.transport.send(method, path, body);
    if (res.status < 200 || res.status > 299) {
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(res.text);
      } catch {
        parsed = null;
      }
      throw new ApiError(
        toErrorBody(parsed) ?? {
          code: res.status === 401 ? "UNAUTHORIZED" : res.status === 404 ? "NOT_FOUND" : "INTERNAL",
          message: `${method} ${path} failed with HTTP ${res.status}`,
          suggestion:
            res.status === 404
              ? "This server does not offer the operation; update it."
              : "Retry; if it persists, see the server log.",
          next_allowed_at: null,
        },
      );
    }
    return res;
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body);
    if (res.status === 204 || res.text === "") return undefined as T;
    const data: unknown = JSON.parse(res.text);
    return data as T;
  }

  async info(): Promise<BackendInfo> {
    const h = await this.json<{ version: string; revision: string; built: string }>("GET", "/api/health");
    return { mode: this.mode, version: h.version, revision: h.revision, built: h.built, server: this.server ?? undefined };
  }
  whoami() {
    return this.json<Identity>("GET", "/api/whoami");
  }
  listTargets() {
    return this.json<Target[]>("GET", "/api/targets");
  }
  createTarget(req: TargetSettings) {
    return this.json<Target>("POST", "/api/targets", req);
  }
  testTarget(id: string) {
    return this.json<TargetProbe>("POST", `/api/targets/${encodeURIComponent(id)}/test`, {});
  }
  listAllTargets() {
    return this.json<Target[]>("GET", "/api/targets?include_archived=true");
  }
  updateTarget(id: string, req: TargetSettings) {
    return this.json<Target>("PUT", `/api/targets/${encodeURIComponent(id)}`, req);
  }
  deleteTarget(id: string) {
    return this.json<TargetRemoval>("DELETE", `/api/targets/${encodeURIComponent(id)}`);
  }
  explore(req: ExploreRequest) {
    return this.json<ExploreStarted>("POST", "/api/exploration/explore", req);
  }
  roleModelsView() {
    return this.json<RoleModelsView>("GET", "/api/role-models");
  }
  listScenarios() {
    return this.json<ScenarioSummary[]>("GET", "/api/scenarios");
  }
  listCampaigns() {
    return this.json<Campaign[]>("GET", "/api/campaigns");
  }
  getCampaign(id: string) {
    return this.json<Campaign>("GET", `/api/campaigns/${encodeURIComponent(id)}`);
  }
  createCampaign(req: CreateCampaign) {
    return this.json<Campaign>("POST", "/api/campaigns", req);
  }
  finalizeCampaign(id: string) {
    return this.json<Campaign>("POST", `/api/campaigns/${encodeURIComponent(id)}/finalize`, {});
  }
  campaignReport(id: string) {
    return this.json<CampaignReport>("GET", `/api/campaigns/${encodeURIComponent(id)}/report`);
  }
  draftRegression(sessionId: string, turn: number | null, pack: string | null, lang: Lang) {
    const q = new URLSearchParams({ lang });
    if (turn !== null) q.set("turn", String(turn));
    if (pack !== null) q.set("pack", pack);
    return this.json<RegressionDraft>("GET", `/api/exploration/sessions/${encodeURIComponent(sessionId)}/regression?${q}`);
  }
  saveScenarioFile(req: SaveScenarioFile) {
    return this.json<ScenarioSummary[]>("POST", "/api/scenarios/files", req);
  }
  compareCampaigns(id: string, baseline: string) {
    return this.json<SideBySide>("GET", `/api/campaigns/${encodeURIComponent(id)}/compare?with=${encodeURIComponent(baseline)}`);
  }
  private exportPath(id: string, format: ExportFormat, lang: Lang): string {
    return `/api/campaigns/${encodeURIComponent(id)}/export?format=${encodeURIComponent(format)}&lang=${lang}`;
  }
  async exportCampaign(id: string, format: ExportFormat, lang: Lang): Promise<string> {
    return (await this.send("GET", this.exportPath(id, format, lang))).text;
  }
  saveExport(id: string, format: ExportFormat, fileName: string, lang: Lang): Promise<boolean> {
    return this.transport.save(this.exportPath(id, format, lang), format, fileName, () => this.exportCampaign(id, format, lang));
  }
  listSessions(campaignId: string) {
    return this.json<ExplorationSession[]>(
      "GET",
      `/api/exploration/campaigns/${encodeURIComponent(campaignId)}/sessions`,
    );
  }
  sessionMessages(sessionId: string) {
    return this.json<SessionTranscript>(
      "GET",
      `/api/exploration/sessions/${encodeURIComponent(sessionId)}/messages`,
    );
  }
  createSession(req: CreateSession) {
    return this.json<ExplorationSession>("POST", "/api/exploration/sessions", req);
  }
  sendMessage(sessionId: string, content: string) {
    return this.json<MessageReply>(
      "POST",
      `/api/exploration/sessions/${encodeURIComponent(sessionId)}/messages`,
      { content },
    );
  }
  closeSession(sessionId: string, record: CloseSession) {
    return this.json<ExplorationSession>(
      "POST",
      `/api/exploration/sessions/${encodeURIComponent(sessionId)}/close`,
      record,
    );
  }
  discardSession(sessionId: string) {
    return this.json<ExplorationSession>("POST", `/api/exploration/sessions/${encodeURIComponent(sessionId)}/discard`);
  }
  listRuns(campaignId: string) {
    return this.json<Run[]>("GET", `/api/campaigns/${encodeURIComponent(campaignId)}/runs`);
  }
  runTurns(runId: string) {
    return this.json<RunTurn[]>("GET", `/api/runs/${encodeURIComponent(runId)}/turns`);
  }
  addReview(req: CreateReview) {
    return this.json<HumanReview>("POST", "/api/reviews", req);
  }
  blindQueue(campaignId: string, limit?: number) {
    const q = limit === undefined ? "" : `?limit=${limit}`;
    return this.json<BlindQueue>("GET", `/api/campaigns/${encodeURIComponent(campaignId)}/blind-queue${q}`);
  }
  submitLabel(req: SubmitLabel) {
    return this.json<LabelRevealed>("POST", "/api/judge-labels", req);
  }
  blindRunQueue(campaignId: string, limit?: number) {
    const q = limit === undefined ? "" : `?limit=${limit}`;
    return this.json<BlindRunQueue>("GET", `/api/campaigns/${encodeURIComponent(campaignId)}/blind-run-queue${q}`);
  }
  submitRunLabel(req: SubmitRunLabel) {
    return this.json<RunLabelRevealed>("POST", "/api/judge-run-labels", req);
  }
  judgeCalibration(campaignId: string) {
    return this.json<JudgeCalibration>("GET", `/api/campaigns/${encodeURIComponent(campaignId)}/judge-calibration`);
  }
  generateAnalysis(campaignId: string, lang: Lang) {
    return this.json<Analysis>("POST", `/api/campaigns/${encodeURIComponent(campaignId)}/analysis?lang=${lang}`, {});
  }
  nextPeriod(campaignId: string, req: NextPeriod, lang: Lang) {
    return this.json<Campaign>("POST", `/api/campaigns/${encodeURIComponent(campaignId)}/next-period?lang=${lang}`, req);
  }
  async getSettings(): Promise<Settings | null> {
    return null;
  }
  updateSettings(): Promise<Settings> {
    return Promise.reject(
      new ApiError({
        code: "CONFLICT",
        message: "settings are managed by the server's operator on a team server",
        suggestion: "Change them in the desktop app or with the server's command-line options.",
        next_allowed_at: null,
      }),
    );
  }
  patrolStatus() {
    return this.json<PatrolStatus>("GET", "/api/patrol-agent");
  }
  pausePatrol() {
    return this.json<PatrolStatus>("POST", "/api/patrol-agent/pause", {});
  }
  resumePatrol() {
    return this.json<PatrolStatus>("POST", "/api/patrol-agent/resume", {});
  }
  reveal(): Promise<void> {
    return Promise.reject(
      new ApiError({
        code: "CONFLICT",
        message: "folders of the server cannot be shown from here",
        suggestion: "Look at the server's data folder on the machine that runs it.",
        next_allowed_at: null,
      }),
    );
  }
  subscribe(onChange: () => void): () => void {
    return this.hub.listen(() => onChange());
  }
  events(listener: LiveListener): () => void {
    return this.hub.listen(listener);
  }
  searchRuns(campaignId: string, query: RunQuery): Promise<RunPage> {
    const id = encodeURIComponent(campaignId);
    return this.json<RunPage>("GET", `/api/campaigns/${id}/runs/search?${queryString(query)}`);
  }
  searchSessions(campaignId: string, query: SessionQuery): Promise<SessionPage> {
    const id = encodeURIComponent(campaignId);
    return this.json<SessionPage>("GET", `/api/exploration/campaigns/${id}/sessions/search?${queryString(query)}`);
  }
  async latestReview(subjectId: string): Promise<HumanReview | null> {
    const list = await this.json<HumanReview[]>("GET", `/api/reviews?subject_id=${encodeURIComponent(subjectId)}`);
    return list[0] ?? null;
  }
}
