import { useCallback, useEffect, useRef, useState } from "react";
import { api, asApiError, type ApiError, type LiveEvent } from "../api";
import { useDatabaseState } from "./useDatabase";

export type Loaded<T> = {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
};

/** Which events a live view reloads on: all (`true`), none, or those a filter keeps. */
export type Live = boolean | ((e: NonNullable<LiveEvent>) => boolean);

const SETTLE_MS = 250;
/** How long a view waits before loading again what the database could not answer (the server's `Retry-After`). */
const DATABASE_RETRY_MS = 5000;

/**
 * Loads data through the api and, when `live`, reloads it when the backend
 * reports a change (Tauri events in the app, the server's event stream in a
 * browser, polling where the server has none). Bursts of events (a session
 * streaming its turns) cause one reload. A load the database could not
 * answer (`DATABASE_UNAVAILABLE`: down, restarting) is tried again by
 * itself until it answers, the error shown meanwhile, and at once when
 * the health check says the database is back.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], live: Live = false): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
  const liveRef = useRef(live);
  liveRef.current = live;
  const seq = useRef(0);

  const reload = useCallback(() => {
    const mine = ++seq.current;
    loadRef
      .current()
      .then((d) => {
        if (mine !== seq.current) return;
        setData(d);
        setError(null);
      })
      .catch((e: unknown) => {
        if (mine !== seq.current) return;
        setError(asApiError(e));
      })
      .finally(() => {
        if (mine === seq.current) setLoading(false);
      });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);

  useEffect(() => {
    setLoading(true);
    reload();
  }, [reload]);

  const unavailable = error?.code === "DATABASE_UNAVAILABLE";
  // "up" while this view still holds the database's refusal: the health check saw it back.
  const databaseBack = useDatabaseState() === "up";
  useEffect(() => {
    if (!unavailable) return undefined;
    if (databaseBack) {
      reload();
      return undefined;
    }
    const timer = window.setTimeout(reload, DATABASE_RETRY_MS);
    return () => window.clearTimeout(timer);
  }, [unavailable, databaseBack, error, reload]);

  const listening = live !== false;
  useEffect(() => {
    if (!listening) return undefined;
    let timer: number | null = null;
    const stop = api.events((e) => {
      const l = liveRef.current;
      if (l === false) return;
      if (e !== null && typeof l === "function" && !l(e)) return;
      if (timer !== null) return;
      timer = window.setTimeout(() => {
        timer = null;
        reload();
      }, SETTLE_MS);
    });
    return () => {
      stop();
      if (timer !== null) window.clearTimeout(timer);
    };
  }, [reload, listening]);

  return { data, error, loading, reload };
}
