import type { ErrorTracker } from "../../contracts/error-tracker.js";

/**
 * The default error tracker when `USE_ERRORTRACKER_LOGGING` is off: accepts and drops everything
 * (errors are still logged by whoever reports them).
 *
 * @example
 * container.bind(ERROR_TRACKER, { useValue: createNoopErrorTracker() });
 */
export function createNoopErrorTracker(): ErrorTracker {
  return {
    captureException() {},
    captureLog() {},
    flush: async () => true,
    close: async () => true,
  };
}
