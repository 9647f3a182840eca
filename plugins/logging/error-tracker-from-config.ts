import type { SvcConfig } from "../../kernel/config.js";
import type { ErrorTracker } from "../../contracts/error-tracker.js";
import { createNoopErrorTracker } from "../../adapters/error-tracker/noop.js";
import { deferredErrorTracker } from "./deferred-error-tracker.js";
import { readLoggingEnvironment, type LoggingEnvironment } from "./logging-environment.js";

/**
 * The error tracker the configuration asks for: Sentry when `USE_ERRORTRACKER_LOGGING=true`
 * (with `ERRORTRACKER_DSN`, required then, and `ERRORTRACKER_TRACES_SAMPLE_RATE`), otherwise the
 * no-op tracker. The variables are read from `config.env`; a malformed one throws
 * `CONFIG_INVALID_ENVIRONMENT`. For scripts and hosts of your own; an app gets its tracker from
 * the logging plugin (`ERROR_TRACKER`).
 *
 * @example
 * const tracker = createErrorTrackerFromConfig(loadConfig());
 */
export function createErrorTrackerFromConfig(config: SvcConfig): ErrorTracker {
  return createErrorTracker(readLoggingEnvironment(config.env).errorTracker, config.nodeEnv);
}

/**
 * The tracker for already-parsed settings. The Sentry SDK is imported only when tracking is on, so
 * apps without tracking (and every test process) do not pay for loading it.
 */
export function createErrorTracker(settings: LoggingEnvironment["errorTracker"], environment: string): ErrorTracker {
  const { enabled, dsn, tracesSampleRate } = settings;
  if (!enabled || dsn === undefined) return createNoopErrorTracker();
  return deferredErrorTracker(
    import("../../adapters/error-tracker/sentry.js").then(({ createSentryErrorTracker }) =>
      createSentryErrorTracker({ dsn, tracesSampleRate, environment }),
    ),
  );
}
