import { save } from "@tauri-apps/plugin-dialog";
import { revealItemInDir } from "@tauri-apps/plugin-opener";
import { commands, events, type ErrorBody, type ExportFormat, type Lang, type Settings } from "../bindings";
import type { Backend, BackendInfo } from "./backend";
import { database, noted, type DatabaseState } from "./database";
import { ApiError, asApiError } from "./errors";
import { EventHub, type Connector, type LiveListener } from "./live";
import { implement, type Calls } from "./operations";

type CommandResult<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorBody };

export async function unwrap<T>(call: Promise<CommandResult<T>>): Promise<T> {
  const r = await call;
  if (r.status === "error") throw noted(new ApiError(r.error));
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

/** A command of the bindings, its arguments erased. */
type AnyCommand = (...args: readonly unknown[]) => Promise<CommandResult<unknown>>;

// Every operation of `Calls`, invoked as its command (constructor).
export interface TauriBackend extends Calls {}

/** The desktop app: commands through the generated bindings, live events. */
export class TauriBackend implements Backend {
  readonly mode = "desktop" as const;
  readonly server = null;

  constructor() {
    Object.assign(
      this,
      implement((call, parts) => {
        // Its arguments were checked against the command where it is declared.
        const command = commands[call.command] as AnyCommand;
        return unwrap(command(...parts.tauri));
      }),
    );
  }

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
  /** The app's own database has no health check: a small read tells, and the app's information whether it is read-only. */
  async checkDatabase(): Promise<DatabaseState> {
    try {
      await this.listTargets();
      const info = await unwrap(commands.appInfo());
      database.set(info.database_read_only ? "read_only" : "up");
    } catch (e) {
      // Any other failure is an answer of the database.
      if (asApiError(e).code !== "DATABASE_UNAVAILABLE") database.set("up");
    }
    return database.current();
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
  getSettings(): Promise<Settings | null> {
    return unwrap(commands.getSettings());
  }
  updateSettings(settings: Settings): Promise<Settings> {
    return unwrap(commands.updateSettings(settings));
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
  async latestReview(subjectId: string) {
    return (await this.listReviews(subjectId))[0] ?? null;
  }
}
