// Live updates: one connection shared by every view that listens. In the
// desktop app the Tauri `platform-event` events; in a browser the server's
// `GET /api/events` stream (Server-Sent Events, read with fetch and a
// stream reader so that the key travels in the X-API-Key header), with
// reconnection and backoff. A server without the stream (404) is polled.

import type { Event } from "../bindings";

/** A platform event, or `null`: "something may have changed" (a poll, a reconnection). */
export type LiveEvent = Event | null;
export type LiveListener = (e: LiveEvent) => void;
/** Opens the underlying connection; returns how to close it. */
export type Connector = (emit: LiveListener) => () => void;

/** Fans one connection out to every listener; open while anyone listens. */
export class EventHub {
  private readonly listeners = new Set<LiveListener>();
  private close: (() => void) | null = null;

  constructor(private readonly connect: Connector) {}

  listen(listener: LiveListener): () => void {
    this.listeners.add(listener);
    if (!this.close) this.close = this.connect((e) => this.listeners.forEach((l) => l(e)));
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.close) {
        this.close();
        this.close = null;
      }
    };
  }
}

function isEvent(v: unknown): v is Event {
  if (typeof v !== "object" || v === null) return false;
  const kind: unknown = Reflect.get(v, "kind");
  const campaign: unknown = Reflect.get(v, "campaign_id");
  return typeof kind === "string" && typeof campaign === "string";
}

/** Parses the `data:` lines of one SSE message block. */
export function parseSseBlock(block: string): Event | null {
  const data = block
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).replace(/^ /, ""))
    .join("\n");
  if (!data) return null;
  try {
    const v: unknown = JSON.parse(data);
    return isEvent(v) ? v : null;
  } catch {
    return null;
  }
}

const POLL_MS = 2000;
const MAX_BACKOFF_MS = 30_000;

/**
 * The browser's connector: reads `/api/events` until the page stops
 * listening, reconnecting with backoff; polls when the server has no stream.
 */
export function sseConnector(key: () => string | null, path = "/api/events"): Connector {
  return (emit) => {
    let closed = false;
    let controller: AbortController | null = null;
    let poll: number | null = null;
    let wake: (() => void) | null = null;

    const startPolling = () => {
      if (poll !== null) return;
      poll = window.setInterval(() => {
        if (document.visibilityState === "visible") emit(null);
      }, POLL_MS);
    };
    const stopPolling = () => {
      if (poll !== null) window.clearInterval(poll);
      poll = null;
    };
    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = window.setTimeout(resolve, ms);
        wake = () => {
          window.clearTimeout(timer);
          resolve();
        };
      });

    const run = async () => {
      let backoff = 1000;
      let connectedBefore = false;
      while (!closed) {
        controller = new AbortController();
        try {
          const headers: Record<string, string> = { Accept: "text/event-stream" };
          const k = key();
          if (k) headers["X-API-Key"] = k;
          const res = await fetch(path, { headers, signal: controller.signal, cache: "no-store" });
          if (res.status === 404) {
            // This server has no event stream: poll as before.
            startPolling();
            return;
          }
          if (res.ok && res.body) {
            stopPolling();
            backoff = 1000;
            // Events may have been missed while disconnected.
            if (connectedBefore) emit(null);
            connectedBefore = true;
            const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
            let buffer = "";
            for (;;) {
              const { value, done } = await reader.read();
              if (done || closed) break;
              buffer += value;
              const blocks = buffer.split(/\r?\n\r?\n/);
              buffer = blocks.pop() ?? "";
              for (const b of blocks) {
                const e = parseSseBlock(b);
                if (e) emit(e);
                // The server dropped events for this slow reader: refresh all.
                else if (/^event:\s*lagged/m.test(b)) emit(null);
              }
            }
          }
        } catch {
          // Network error or abort: reconnect below unless closed.
        }
        if (closed) return;
        // While the stream is down, keep the views fresh by polling.
        startPolling();
        await sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    };
    void run();

    return () => {
      closed = true;
      stopPolling();
      controller?.abort();
      wake?.();
    };
  };
}
