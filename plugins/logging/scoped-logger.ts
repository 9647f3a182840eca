import type winston from "winston";
import { LoggingErrors } from "./errors.js";
import { RESERVED_LOG_KEYS } from "./log-context.js";
import { LOG_SCOPE, type LogScope } from "./log-formats.js";
import { logger as globalLogger } from "./logger.js";
import type { WinstonSvcLogger } from "./create-logger.js";

export type LogLabelValue = string | number | boolean | bigint | null | undefined | Date;

export interface ScopedLoggerOptions {
  /** Shown as `[prefix]` in text output and as `svcLogPrefix` in structured output. */
  prefix?: string;
  /** Fixed labels on every line (`svcLabels`); values become strings, undefined ones are dropped. */
  labels?: Readonly<Record<string, LogLabelValue>>;
  /** The logger to derive from (default: the global logger). */
  logger?: winston.Logger;
}

/**
 * A logger for one component: every line carries `svcLogPrefix` and `svcLabels` besides the
 * correlation fields. With neither a prefix nor labels it returns the base logger itself. Label
 * keys may not be reserved keys (`requestId`, `userId`, `svcLabels`, ...): that throws
 * `LOGGING_RESERVED_LABEL`.
 *
 * @example
 * const log = createScopedLogger({ prefix: "billing", labels: { shard: 3 } });
 * log.info("Invoice sent", { invoice: "in_1" }); // svcLogPrefix "billing", svcLabels { shard: "3" }
 */
export function createScopedLogger(options: ScopedLoggerOptions = {}): WinstonSvcLogger {
  const base = (options.logger ?? globalLogger) as WinstonSvcLogger;
  const prefix = options.prefix?.trim() || undefined;
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.labels ?? {})) {
    if (RESERVED_LOG_KEYS.includes(key)) throw LoggingErrors.RESERVED_LABEL(key);
    if (value === undefined) continue;
    labels[key] = value instanceof Date ? value.toISOString() : String(value);
  }
  if (prefix === undefined && Object.keys(labels).length === 0) return base;
  // Nested scoped loggers keep the outer labels and the innermost prefix.
  const outer = (base as unknown as { [LOG_SCOPE]?: LogScope })[LOG_SCOPE];
  const scope: LogScope = {
    prefix: prefix ?? outer?.prefix,
    labels: { ...outer?.labels, ...labels },
  };
  const child = base.child({ [LOG_SCOPE]: scope }) as WinstonSvcLogger;
  Object.defineProperty(child, LOG_SCOPE, { value: scope, enumerable: false });
  return child;
}
