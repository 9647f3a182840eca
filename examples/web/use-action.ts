// What every form and button of the demo does with a request: busy while it runs, its failure
// said once, the previous one cleared.
import { useState } from "react";

/**
 * `run(work)` marks the component busy, clears the last error, runs `work`, and keeps what it
 * threw as `error` (the server's message: see `failureOf`).
 *
 * @example
 * const { busy, error, run } = useAction();
 * <button disabled={busy} onClick={() => run(() => endSignIn(session, id))}>Sign out</button>
 */
export function useAction(): { busy: boolean; error: string | undefined; setError: (error: string | undefined) => void; run: (work: () => Promise<void>) => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const run = (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    void work()
      .catch((failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure)))
      .finally(() => setBusy(false));
  };
  return { busy, error, setError, run };
}
