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
  Run,
  RunTurn,
  CampaignReport,
  CreateCampaign,
  CreateSession,
  CreateTarget,
  ExploreRequest,
  ExploreStarted,
  ExportFormat,
  PatrolStatus,
  ScenarioSummary,
  Settings,
  Target,
  TargetProbe,
  TargetRemoval,
  UpdateTarget,
  RoleModelsView,
  RunPage,
  RunQuery,
  SessionPage,
  SessionQuery,
} from "../bindings";
import type { Backend, BackendInfo } from "./backend";
import { ApiError, toErrorBody } from "./errors";
import type { CloseSession, ExplorationSession, MessageReply, SessionTranscript } from "./exploration";
import { EventHub, sseConnector, type LiveListener } from "./live";
import { queryString } from "./paging";

const KEY_STORAGE = "agenteval.apiKey";

/** The API key: `?key=` on the first load, then localStorage. */
export function initialApiKey(): string | null {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get("key");
  if (fromUrl) {
    window.localStorage.setItem(KEY_STORAGE, fromUrl);
    url.searchParams.delete("key");
    window.history.replaceState(null, "", url.toString());
    return fromUrl;
  }
  return window.localStorage.getItem(KEY_STORAGE);
}

export function storeApiKey(key: string): void {
  window.localStorage.setItem(KEY_STORAGE, key);
}

/** The HTTP API on the same origin (`agenteval serve`). */
export class HttpBackend implements Backend {
  readonly mode = "browser" as const;
  private key: string | null;

  constructor(key: string | null) {
    this.key = key;
  }

  setKey(key: string): void {
    this.key = key;
    storeApiKey(key);
  }

  private async send(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.key) headers["X-API-Key"] = this.key;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      throw new ApiError({
        code: "INTERNAL",
        message: `the server cannot be reached (${e instanceof Error ? e.message : String(e)})`,
        suggestion: "Check that `agenteval serve` is running, then retry.",
        next_allowed_at: null,
      });
    }
    if (!res.ok) {
      let parsed: unknown = null;
      try {
        parsed = await res.json();
      } catch {
        parsed = null;
      }
      const body = toErrorBody(parsed);
      throw new ApiError(
        body ?? {
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
    if (res.status === 204) return undefined as T;
    const data: unknown = await res.json();
    return data as T;
  }

  async info(): Promise<BackendInfo> {
    const h = await this.json<{ version: string; revision: string; built: string }>("GET", "/api/health");
    return { mode: "browser", version: h.version, revision: h.revision, built: h.built };
  }
  listTargets() {
    return this.json<Target[]>("GET", "/api/targets");
  }
  createTarget(req: CreateTarget) {
    return this.json<Target>("POST", "/api/targets", req);
  }
  testTarget(id: string) {
    return this.json<TargetProbe>("POST", `/api/targets/${encodeURIComponent(id)}/test`, {});
  }
  listAllTargets() {
    return this.json<Target[]>("GET", "/api/targets?include_archived=true");
  }
  updateTarget(id: string, req: UpdateTarget) {
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
  async exportCampaign(id: string, format: ExportFormat): Promise<string> {
    const res = await this.send(
      "GET",
      `/api/campaigns/${encodeURIComponent(id)}/export?format=${encodeURIComponent(format)}`,
    );
    return res.text();
  }
  async saveExport(id: string, format: ExportFormat, fileName: string): Promise<boolean> {
    const text = await this.exportCampaign(id, format);
    const type = format === "json" ? "application/json" : format === "junit" ? "application/xml" : "text/plain";
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = document.createElement("a");
    a.href = url;
    a.download = fileName;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    return true;
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
  generateAnalysis(campaignId: string) {
    return this.json<Analysis>("POST", `/api/campaigns/${encodeURIComponent(campaignId)}/analysis`, {});
  }
  nextPeriod(campaignId: string) {
    return this.json<Campaign>("POST", `/api/campaigns/${encodeURIComponent(campaignId)}/next-period`, {});
  }
  async getSettings(): Promise<Settings | null> {
    return null;
  }
  updateSettings(): Promise<Settings> {
    return Promise.reject(
      new ApiError({
        code: "CONFLICT",
        message: "settings are managed by the server's operator in browser mode",
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
        message: "folders of the server cannot be shown in a browser",
        suggestion: "Look at the server's data folder on the machine that runs it.",
        next_allowed_at: null,
      }),
    );
  }
  private readonly hub = new EventHub(sseConnector(() => this.key));
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
