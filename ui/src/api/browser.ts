// The browser's way to the API of `agenteval serve` on the same origin:
// fetch with the key in X-API-Key, the live events read from the server's
// stream, exports saved by the browser's download.
//
// The key is asked for once and kept for the browser session (per tab,
// sessionStorage): closing the tab forgets it. `?key=` in the first URL
// gives it without the prompt and is removed from the address bar.

import type { ExportFormat } from "../bindings";
import { ApiError } from "./errors";
import type { Answer, Transport } from "./http";
import { sseConnector } from "./live";
import { TextBody } from "./operations";
import { downloadText } from "../download";

const KEY_STORAGE = "agenteval.apiKey";

/** The key: `?key=` on the first load, then the session's. */
function initialKey(): string | null {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get("key");
  if (fromUrl) {
    window.sessionStorage.setItem(KEY_STORAGE, fromUrl);
    url.searchParams.delete("key");
    window.history.replaceState(null, "", url.toString());
    return fromUrl;
  }
  // A key an earlier version kept for good moves to the session.
  const kept = window.localStorage.getItem(KEY_STORAGE);
  if (kept) {
    window.localStorage.removeItem(KEY_STORAGE);
    window.sessionStorage.setItem(KEY_STORAGE, kept);
  }
  return window.sessionStorage.getItem(KEY_STORAGE);
}

const TYPES: Record<ExportFormat, string> = {
  md: "text/markdown",
  json: "application/json",
  csv: "text/csv",
  sessions_csv: "text/csv",
  junit: "application/xml",
};

export class BrowserTransport implements Transport {
  private key: string | null = initialKey();
  readonly connector = sseConnector(() => this.key);

  /** Whether a key was given (it may still be refused). */
  hasKey(): boolean {
    return this.key !== null;
  }

  setKey(key: string): void {
    this.key = key;
    window.sessionStorage.setItem(KEY_STORAGE, key);
  }

  /** Forgets the key (sign out): the next call asks for one. */
  forgetKey(): void {
    this.key = null;
    window.sessionStorage.removeItem(KEY_STORAGE);
  }

  async send(method: string, path: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.key) headers["X-API-Key"] = this.key;
    if (body !== undefined) headers["Content-Type"] = body instanceof TextBody ? "text/plain; charset=utf-8" : "application/json";
    try {
      const res = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : body instanceof TextBody ? body.text : JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    } catch (e) {
      throw new ApiError({
        code: "INTERNAL",
        message: `the server cannot be reached (${e instanceof Error ? e.message : String(e)})`,
        suggestion: "Check that `agenteval serve` is running, then retry.",
        next_allowed_at: null,
      });
    }
  }

  async save(_path: string, format: ExportFormat, fileName: string, text: () => Promise<string>): Promise<boolean> {
    downloadText(fileName, await text(), TYPES[format]);
    return true;
  }
}
