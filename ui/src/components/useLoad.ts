import { useCallback, useEffect, useRef, useState } from "react";
import { api, asApiError, type ApiError } from "../api";

export type Loaded<T> = {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
};

/**
 * Loads data through the api and reloads it when the backend reports a
 * change (Tauri events in the app, polling in a browser) when `live`.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], live = false): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
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
    if (!live) return undefined;
    return api.subscribe(reload);
  }, [reload, live]);

  return { data, error, loading, reload };
}
