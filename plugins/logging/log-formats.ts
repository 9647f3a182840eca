import winston from "winston";
import type { Logform } from "winston";
import { CORRELATION_FIELDS, formatLogContextSuffix, getCurrentLogContext, type LogContext } from "./log-context.js";
import { redactSecrets } from "./redact-secrets.js";

/**
 * Where a scoped logger keeps its prefix and labels on a log entry. A symbol, so nothing a caller
 * passes as metadata can set or overwrite it.
 */
export const LOG_SCOPE = Symbol.for("svc.logScope");

export interface LogScope {
  readonly prefix?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

type Entry = Logform.TransformableInfo & { [LOG_SCOPE]?: LogScope };

const FRAMEWORK_KEYS = ["svcRequestLog", "svcLogPrefix", "svcLabels"] as const;

/**
 * Adds the correlation fields of the active scope to every entry (read at log time, so a user id
 * set by authentication mid-request is included), plus `svcRequestLog: {requestId, userId}`
 * (`userId` null when anonymous) and a scoped logger's `svcLogPrefix`/`svcLabels`. Reserved keys
 * are protected: framework keys always come from the framework, and while a scope is active the
 * six correlation fields come only from it.
 */
export const correlationFormat = winston.format((info: Entry) => {
  for (const key of FRAMEWORK_KEYS) delete info[key];
  const context = getCurrentLogContext();
  const inScope = Object.keys(context).length > 0;
  if (inScope) {
    for (const field of CORRELATION_FIELDS) {
      if (context[field] === undefined) delete info[field];
      else info[field] = context[field];
    }
    info.svcRequestLog = { requestId: context.requestId ?? null, userId: context.userId ?? null };
  }
  const scope = info[LOG_SCOPE];
  if (scope?.prefix) info.svcLogPrefix = scope.prefix;
  if (scope?.labels && Object.keys(scope.labels).length > 0) info.svcLabels = { ...scope.labels };
  return info;
});

const PLAIN_KEYS = new Set(["level", "message", "timestamp", "stack", ...FRAMEWORK_KEYS, ...CORRELATION_FIELDS]);

/** Replaces secret-looking metadata values (`password`, `token`, `authorization`...) at any depth. */
export const redactionFormat = winston.format((info: Entry) => {
  for (const key of Object.keys(info)) {
    if (PLAIN_KEYS.has(key)) continue;
    info[key] = redactSecrets({ [key]: info[key] })[key];
  }
  return info;
});

/**
 * The human-readable console line: `time level: [prefix] message key=value... {other meta}`.
 *
 * @example
 * // 2026-01-01T10:00:00.000Z info: [billing] Invoice sent requestId=r-1 userId=42 {"invoice":"in_1"}
 */
export const textLineFormat = winston.format.printf((info) => {
  const entry = info as Entry;
  const context: LogContext = {};
  for (const field of CORRELATION_FIELDS) {
    if (typeof entry[field] === "string") context[field] = entry[field] as string;
  }
  const labels = (entry.svcLabels ?? {}) as Record<string, string>;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (!PLAIN_KEYS.has(key) && value !== undefined) rest[key] = value;
  }
  const prefix = typeof entry.svcLogPrefix === "string" ? `[${entry.svcLogPrefix}] ` : "";
  const meta = Object.keys(rest).length > 0 ? ` ${safeJson(rest)}` : "";
  const stack = typeof entry.stack === "string" ? `\n${entry.stack}` : "";
  return `${String(entry.timestamp ?? "")} ${entry.level}: ${prefix}${String(entry.message)}${formatLogContextSuffix(context, labels)}${meta}${stack}`;
});

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return "[unserializable]";
  }
}
