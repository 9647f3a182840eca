import type { ErrorTracker, ErrorTrackerContext, ErrorTrackerLogEntry } from "../../contracts/error-tracker.js";

/** Reports that arrive while the real tracker loads are kept, up to this many, then dropped. */
const MAX_PENDING = 100;

/**
 * An error tracker whose implementation is still loading (e.g. `@sentry/node`, which costs about
 * a second to import and is only wanted when tracking is on). Captures made before it is ready
 * are buffered (bounded) and replayed; `flush` and `close` wait for it.
 *
 * @example
 * const tracker = deferredErrorTracker(import("./sentry.js").then((m) => m.createSentryErrorTracker(options)));
 */
export function deferredErrorTracker(loading: Promise<ErrorTracker>): ErrorTracker {
  let ready: ErrorTracker | undefined;
  let pending: Array<(tracker: ErrorTracker) => void> = [];
  const settled = loading.then(
    (tracker) => {
      ready = tracker;
      for (const replay of pending) replay(tracker);
      pending = [];
      return tracker;
    },
    (error: unknown) => {
      // Reporting must never cause a failure of its own: without a tracker, reports are dropped.
      process.emitWarning(`Error tracker failed to load; reports are dropped: ${String(error)}`);
      pending = [];
      return undefined;
    },
  );
  const whenReady = (action: (tracker: ErrorTracker) => void) => {
    if (ready) action(ready);
    else if (pending.length < MAX_PENDING) pending.push(action);
  };
  return {
    captureException(error: unknown, context?: ErrorTrackerContext) {
      whenReady((tracker) => tracker.captureException(error, context));
    },
    captureLog(entry: ErrorTrackerLogEntry) {
      whenReady((tracker) => tracker.captureLog(entry));
    },
    async flush(timeoutMs?: number) {
      const tracker = await settled;
      return tracker ? tracker.flush(timeoutMs) : true;
    },
    async close(timeoutMs?: number) {
      const tracker = await settled;
      return tracker ? tracker.close(timeoutMs) : true;
    },
  };
}
