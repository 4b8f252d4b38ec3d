// Whether the backend's database answers, for the whole UI. Any call the
// backend answers with DATABASE_UNAVAILABLE (PostgreSQL down or
// restarting, a full disk) marks it unavailable before the error reaches
// the view; the health check (`Backend.checkDatabase`) marks it up again,
// or read-only (a read-only data folder: reads answer, writes are
// refused until the server restarts on a writable one). While it is
// unavailable the UI says so at the top of every page and polls the
// health check; views that could not load then load again.

import type { ApiError } from "./errors";

export type DatabaseState = "up" | "unavailable" | "read_only";
type Listener = (state: DatabaseState) => void;

export class DatabaseStatus {
  private state: DatabaseState = "up";
  private readonly listeners = new Set<Listener>();

  current(): DatabaseState {
    return this.state;
  }

  set(state: DatabaseState): void {
    if (state === this.state) return;
    this.state = state;
    this.listeners.forEach((l) => l(state));
  }

  /** Calls `listener` on every change; returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

export const database = new DatabaseStatus();

/** Notes an error the backend answered (the database down, or not), and returns it to throw. */
export function noted(error: ApiError): ApiError {
  // A refused write on a database known to be read-only says nothing new.
  if (error.code === "DATABASE_UNAVAILABLE" && database.current() !== "read_only") database.set("unavailable");
  return error;
}

/**
 * What an answer of `GET /api/health` says of the database: down
 * (`database: "unavailable"`, with a 503), read-only (`database:
 * "read_only"`), up (any other success), or `null` when it says nothing
 * (another failure, a proxy's error page).
 */
export function healthSays(status: number, body: unknown): DatabaseState | null {
  const db: unknown = typeof body === "object" && body !== null ? Reflect.get(body, "database") : undefined;
  if (db === "unavailable") return "unavailable";
  if (db === "read_only" && status >= 200 && status <= 299) return "read_only";
  if (status >= 200 && status <= 299) return "up";
  return null;
}
