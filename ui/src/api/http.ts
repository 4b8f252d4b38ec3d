import type { ExportFormat, Lang, ServerConnection, Settings } from "../bindings";
import type { Backend, BackendInfo } from "./backend";
import { database, healthSays, noted, type DatabaseState } from "./database";
import { ApiError, toErrorBody } from "./errors";
import { EventHub, type Connector, type LiveListener } from "./live";
import { httpRequest, httpTarget, implement, type Calls } from "./operations";

/** One answer of the API: its status and its body as text. */
export type Answer = { status: number; text: string };

/** How an HttpBackend reaches the API. */
export interface Transport {
  /**
   * Sends one call (a TextBody as it is, any other body as JSON); throws
   * ApiError only when the server cannot be reached.
   */
  send(method: string, path: string, body?: unknown): Promise<Answer>;
  /** The live events' connection. */
  readonly connector: Connector;
  /**
   * Saves the answer of the GET `path` (an export) where the user says;
   * false when the user cancelled. `text` fetches it, errors checked.
   */
  save(path: string, format: ExportFormat, fileName: string, text: () => Promise<string>): Promise<boolean>;
}

/** What `GET /api/health` answers besides the database's state. */
type Health = { version: string; revision: string; built: string };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The error of an answer that is no success: the server's own, else one said from its status. */
function refusal(method: string, path: string, res: Answer, body: unknown): ApiError {
  return new ApiError(
    toErrorBody(body) ?? {
      code: res.status === 401 ? "UNAUTHORIZED" : res.status === 404 ? "NOT_FOUND" : "INTERNAL",
      message: `${method} ${path} failed with HTTP ${res.status}`,
      suggestion:
        res.status === 404 ? "This server does not offer the operation; update it." : "Retry; if it persists, see the server log.",
      next_allowed_at: null,
    },
  );
}

// Every operation of `Calls`, sent as its HTTP request (constructor).
export interface HttpBackend extends Calls {}

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
    Object.assign(
      this,
      implement((call, parts) => {
        const { method, path } = httpRequest(call.operation, parts.http);
        return this.json(method, path, parts.http.body);
      }),
    );
  }

  private async send(method: string, path: string, body?: unknown): Promise<Answer> {
    const res = await this.transport.send(method, path, body);
    if (res.status < 200 || res.status > 299) throw noted(refusal(method, path, res, parseJson(res.text)));
    return res;
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body);
    if (res.status === 204 || res.text === "") return undefined as T;
    const data: unknown = JSON.parse(res.text);
    return data as T;
  }

  /**
   * The health check's answer, its word on the database noted: a 503
   * (the database down) is an answer too, with the server's version.
   */
  private async health(): Promise<Health> {
    const { method, path } = httpTarget("health", {});
    const res = await this.transport.send(method, path);
    const body = parseJson(res.text);
    const state = healthSays(res.status, body);
    if (state === null || typeof body !== "object" || body === null) throw noted(refusal(method, path, res, body));
    database.set(state);
    return body as Health;
  }
  async checkDatabase(): Promise<DatabaseState> {
    try {
      await this.health();
    } catch {
      // The server itself is out of reach: nothing is known of its database.
    }
    return database.current();
  }
  async info(): Promise<BackendInfo> {
    const h = await this.health();
    return { mode: this.mode, version: h.version, revision: h.revision, built: h.built, server: this.server ?? undefined };
  }
  /** The export's GET path (its answer is the file's text, not JSON). */
  private exportPath(id: string, format: ExportFormat, lang: Lang): string {
    return httpTarget("export_campaign", { path: { id }, query: { format, lang } }).path;
  }
  async exportCampaign(id: string, format: ExportFormat, lang: Lang): Promise<string> {
    return (await this.send("GET", this.exportPath(id, format, lang))).text;
  }
  saveExport(id: string, format: ExportFormat, fileName: string, lang: Lang): Promise<boolean> {
    return this.transport.save(this.exportPath(id, format, lang), format, fileName, () => this.exportCampaign(id, format, lang));
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
  async latestReview(subjectId: string) {
    return (await this.listReviews(subjectId))[0] ?? null;
  }
}
