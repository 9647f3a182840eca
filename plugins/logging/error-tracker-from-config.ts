import type { SvcConfig } from "../../kernel/config.js";
import type { ErrorTracker } from "../../contracts/error-tracker.js";
import { createNoopErrorTracker } from "../../adapters/error-tracker/noop.js";
import { deferredErrorTracker } from "./deferred-error-tracker.js";

/**
 * The error tracker the configuration asks for: Sentry when `USE_ERRORTRACKER_LOGGING=true`
 * (with `ERRORTRACKER_DSN`, required then, and `ERRORTRACKER_TRACES_SAMPLE_RATE`), otherwise the
 * no-op tracker. The Sentry SDK is imported only in the first case, so apps without tracking
 * (and every test process) do not pay for loading it.
 *
 * @example
 * const tracker = createErrorTrackerFromConfig(loadConfig());
 */
export function createErrorTrackerFromConfig(config: SvcConfig): ErrorTracker {
  const { enabled, dsn, tracesSampleRate } = config.errorTracker;
  if (!enabled || dsn === undefined) return createNoopErrorTracker();
  return deferredErrorTracker(
    import("../../adapters/error-tracker/sentry.js").then(({ createSentryErrorTracker }) =>
      createSentryErrorTracker({ dsn, tracesSampleRate, environment: config.nodeEnv }),
    ),
  );
}
