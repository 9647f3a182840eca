import type winston from "winston";
import { DATABASE } from "../../contracts/database.js";
import { ERROR_TRACKER, type ErrorTracker } from "../../contracts/error-tracker.js";
import { REQUEST_LOGGING_MIDDLEWARE } from "../../contracts/http.js";
import type { SvcLogger } from "../../kernel/logger.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { createErrorTracker } from "./error-tracker-from-config.js";
import { ErrorTrackerTransport } from "./error-tracker-transport.js";
import { readLoggingEnvironment, type LoggingEnvironment } from "./logging-environment.js";
import { requestLoggingMiddleware } from "./request-logging-middleware.js";
import { monitorSlowDatabaseOperations, type CommandEventSource } from "./slow-database-operations.js";

export interface LoggingPluginOptions {
  /** Start after the database plugin and watch its connection for slow operations. */
  database?: boolean;
  /** Include request bodies (redacted) in request lines. Default true. */
  logBodies?: boolean;
  /** Lowest level mirrored to the error tracker when `USE_ERRORTRACKER_LOGGING=true`. Default `info`. */
  mirrorLogLevel?: string;
  /** Milliseconds clock for request durations (tests). */
  now?: () => number;
}

/**
 * Request logging, the error tracker and slow-database-operation logging for an app; `SvcApp`
 * adds it by default. It binds `ERROR_TRACKER` (Sentry when `USE_ERRORTRACKER_LOGGING=true`,
 * else a no-op; swap it with `app.override(ERROR_TRACKER, ...)`) and `REQUEST_LOGGING_MIDDLEWARE`
 * (honouring `DISABLE_LOG_ALL_REQUESTS` and `SLOW_REQUEST_THRESHOLD_MS`); on start it mirrors
 * logs to the tracker when tracking is on and watches the database for operations slower than
 * `SLOW_DB_QUERY_THRESHOLD_MS`; on stop it flushes and closes the tracker.
 *
 * @example
 * kernel.add(loggingPlugin({ database: true }));
 */
export function loggingPlugin(options: LoggingPluginOptions = {}): SvcPlugin {
  let stopMonitoring: (() => void) | undefined;
  let mirror: { logger: winston.Logger; transport: ErrorTrackerTransport } | undefined;
  let tracker: ErrorTracker | undefined;
  let environment: LoggingEnvironment | undefined;

  return {
    name: "logging",
    dependsOn: options.database ? ["database"] : [],
    register(ctx) {
      // Read here, not in start: a malformed variable fails the app before anything opens.
      const env = (environment = readLoggingEnvironment(ctx.config.env));
      ctx.container.bind(ERROR_TRACKER, { useFactory: () => createErrorTracker(env.errorTracker, ctx.config.nodeEnv) });
      ctx.container.bind(REQUEST_LOGGING_MIDDLEWARE, {
        useFactory: () =>
          requestLoggingMiddleware({
            // Resolved per line: a later LOGGER override still takes effect.
            logger: () => ctx.logger,
            logAllRequests: !env.disableLogAllRequests,
            slowRequestThresholdMs: env.slowRequestThresholdMs,
            logBodies: options.logBodies,
            now: options.now,
          }),
      });
    },
    start(ctx) {
      tracker = ctx.resolve(ERROR_TRACKER);
      const logger = ctx.logger;
      const env = environment ?? readLoggingEnvironment(ctx.config.env);
      if (env.errorTracker.enabled && isWinston(logger)) {
        const transport = new ErrorTrackerTransport({ tracker, level: options.mirrorLogLevel });
        logger.add(transport);
        mirror = { logger, transport };
      }
      const source = options.database ? commandSource(ctx.container.tryResolve(DATABASE)) : undefined;
      if (source) {
        stopMonitoring = monitorSlowDatabaseOperations(source, {
          thresholdMs: env.slowDbQueryThresholdMs,
          logger: () => ctx.logger,
        });
      }
    },
    async stop() {
      stopMonitoring?.();
      stopMonitoring = undefined;
      if (mirror) mirror.logger.remove(mirror.transport);
      mirror = undefined;
      await tracker?.close(2000);
    },
  };
}

function isWinston(logger: SvcLogger): logger is SvcLogger & winston.Logger {
  const candidate = logger as Partial<winston.Logger>;
  return typeof candidate.add === "function" && typeof candidate.remove === "function";
}

function commandSource(database: { connection: { getClient(): unknown } } | undefined): CommandEventSource | undefined {
  try {
    const client = database?.connection.getClient() as Partial<CommandEventSource> | undefined;
    return client && typeof client.on === "function" && typeof client.off === "function" ? (client as CommandEventSource) : undefined;
  } catch {
    // No open connection (e.g. a test double): nothing to watch.
    return undefined;
  }
}
