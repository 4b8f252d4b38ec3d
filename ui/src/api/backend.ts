import type { ExportFormat, HumanReview, KeyStorage, Lang, ServerConnection, Settings } from "../bindings";
import type { DatabaseState } from "./database";
import type { LiveListener } from "./live";
import type { Calls } from "./operations";

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

/**
 * Everything the UI asks of the backend. Errors are thrown as ApiError.
 * Each operation is declared once in `operations.ts` (`Calls`); what is
 * below is what each backend does its own way.
 */
export interface Backend extends Calls {
  readonly mode: BackendMode;
  /** The team server the desktop app works on (mode `server`), else `null`. */
  readonly server: ServerConnection | null;
  info(): Promise<BackendInfo>;
  /** Asks whether the database answers now; the answer also goes to `database`. */
  checkDatabase(): Promise<DatabaseState>;
  /** The export with the report's own words in `lang`. */
  exportCampaign(id: string, format: ExportFormat, lang: Lang): Promise<string>;
  /** Saves the export where the user says; false when the user cancelled. */
  saveExport(id: string, format: ExportFormat, fileName: string, lang: Lang): Promise<boolean>;
  /** `null` when the backend keeps no editable settings (browser mode). */
  getSettings(): Promise<Settings | null>;
  updateSettings(settings: Settings): Promise<Settings>;
  /** Shows a folder of the local machine in the file manager (desktop only). */
  reveal(path: string): Promise<void>;
  /** Calls `onChange` whenever data may have changed; returns the unsubscribe. */
  subscribe(onChange: () => void): () => void;
  /** Every platform event as it happens (`null`: something may have changed); returns the unsubscribe. */
  events(listener: LiveListener): () => void;
  /** The newest rating of a run or session, or `null` when nobody rated it. */
  latestReview(subjectId: string): Promise<HumanReview | null>;
}
