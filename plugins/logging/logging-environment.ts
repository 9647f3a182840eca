import { bool, milliseconds, numberInRange, readEnvironment, str, type Environment } from "../../kernel/environment.js";

/** The logging and error-tracking variables (SPEC §8), parsed and checked. */
export interface LoggingEnvironment {
  /** `DISABLE_LOG_ALL_REQUESTS`, default false. */
  readonly disableLogAllRequests: boolean;
  /** `SLOW_REQUEST_THRESHOLD_MS`, default 3000. */
  readonly slowRequestThresholdMs: number;
  /** `SLOW_DB_QUERY_THRESHOLD_MS`, default 1000. */
  readonly slowDbQueryThresholdMs: number;
  readonly errorTracker: {
    /** `USE_ERRORTRACKER_LOGGING`, default false. */
    readonly enabled: boolean;
    /** `ERRORTRACKER_DSN`, required when tracking is on. */
    readonly dsn?: string;
    /** `ERRORTRACKER_TRACES_SAMPLE_RATE`, 0 to 1, default 0.1. */
    readonly tracesSampleRate: number;
  };
}

/**
 * Reads the logging plugin's variables from an environment map (an app's `ctx.config.env`, or
 * `process.env` outside an app). A malformed value, or tracking switched on without
 * `ERRORTRACKER_DSN` (or with a blank one), throws one `CONFIG_INVALID_ENVIRONMENT` error naming
 * the variables; the plugin calls this in `register()`, so a bad value fails the app's start.
 *
 * @example
 * const env = readLoggingEnvironment(ctx.config.env);
 * env.slowRequestThresholdMs; // 3000 unless SLOW_REQUEST_THRESHOLD_MS says otherwise
 */
export function readLoggingEnvironment(environment: Environment): LoggingEnvironment {
  // A blank DSN (`ERRORTRACKER_DSN=` in a .env file) counts as unset, so tracking switched on
  // with it fails the start instead of quietly tracking nothing.
  const dsnGiven = environment.ERRORTRACKER_DSN?.trim() ? environment.ERRORTRACKER_DSN : undefined;
  const env = readEnvironment({ ...environment, ERRORTRACKER_DSN: dsnGiven }, {
    DISABLE_LOG_ALL_REQUESTS: bool({ default: false }),
    SLOW_REQUEST_THRESHOLD_MS: milliseconds({ default: 3000 }),
    SLOW_DB_QUERY_THRESHOLD_MS: milliseconds({ default: 1000 }),
    USE_ERRORTRACKER_LOGGING: bool({ default: false }),
    ERRORTRACKER_DSN: str({
      default: undefined,
      requiredWhen: (cleaned) => cleaned.USE_ERRORTRACKER_LOGGING === true,
    }),
    ERRORTRACKER_TRACES_SAMPLE_RATE: numberInRange(0, 1)({ default: 0.1 }),
  });
  return {
    disableLogAllRequests: env.DISABLE_LOG_ALL_REQUESTS,
    slowRequestThresholdMs: env.SLOW_REQUEST_THRESHOLD_MS,
    slowDbQueryThresholdMs: env.SLOW_DB_QUERY_THRESHOLD_MS,
    errorTracker: { enabled: env.USE_ERRORTRACKER_LOGGING, dsn: env.ERRORTRACKER_DSN, tracesSampleRate: env.ERRORTRACKER_TRACES_SAMPLE_RATE },
  };
}

