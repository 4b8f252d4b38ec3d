import { useEffect, useState } from "react";
import { asApiError, type ApiError } from "../../api";

/**
 * One item at a time from a blind review queue: the queue as `load`
 * returns it (again after `next`), the person's draft scores (emptied for
 * each item), the revealed comparison once `submit` stored the label, and
 * the error of either.
 */
export function useBlindItem<Queue, Draft extends object, Revealed>(load: () => Promise<Queue>, key: string, onLabelled: () => void) {
  const [queue, setQueue] = useState<Queue | null>(null);
  const [draft, setDraft] = useState<Draft>({} as Draft);
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [round, setRound] = useState(0);

  useEffect(() => {
    let cancelled = false;
    load()
      .then((q) => {
        if (cancelled) return;
        setQueue(q);
        setDraft({} as Draft);
        setRevealed(null);
        setError(null);
      })
      .catch((e: unknown) => {
        if (!cancelled) setError(asApiError(e));
      });
    return () => {
      cancelled = true;
    };
    // `key` names what `load` reads.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, round]);

  /** Stores the label with `send`; reveals what it returns. */
  const submit = async (send: () => Promise<Revealed>) => {
    setBusy(true);
    try {
      setRevealed(await send());
      setError(null);
      onLabelled();
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  return { queue, draft, setDraft, revealed, error, setError, busy, submit, next: () => setRound((r) => r + 1) };
}
