import { getRequestContext } from "../../kernel/request-context.js";

/** The correlation fields a log line carries while a scope is active (SPEC §2.9). */
export const CORRELATION_FIELDS = ["requestId", "jobId", "sessionId", "userId", "traceId", "spanId"] as const;

export type CorrelationField = (typeof CORRELATION_FIELDS)[number];

/**
 * Keys the framework owns on a log line. Scoped-logger labels may not use them, and while a scope
 * is active a caller's metadata cannot overwrite them (so a log line cannot be made to claim
 * another request's id).
 */
export const RESERVED_LOG_KEYS: readonly string[] = [...CORRELATION_FIELDS, "svcLogPrefix", "svcRequestLog", "svcLabels"];

/** A snapshot of the current correlation fields; only the known ones are present. */
export type LogContext = Partial<Record<CorrelationField, string>>;

/**
 * The correlation fields of the unit of work in progress, read now (so a `userId` set by
 * authentication after the scope began is included). `{}` outside any scope.
 *
 * @example
 * runWithRequestContext({ requestId: "r-1" }, () => getCurrentLogContext()); // { requestId: "r-1" }
 */
export function getCurrentLogContext(): LogContext {
  const context = getRequestContext();
  const snapshot: LogContext = {};
  if (!context) return snapshot;
  for (const field of CORRELATION_FIELDS) {
    const value = context[field];
    if (value !== undefined && value !== null && value !== "") snapshot[field] = String(value);
  }
  return snapshot;
}

/**
 * The plain-text form of correlation fields (and optional labels) for human-readable log lines:
 * ` key=value` pairs with a leading space, so it can be appended to a message; `""` when there is
 * nothing to add. Values containing spaces, quotes or `=` are JSON-quoted.
 *
 * @example
 * `${message}${formatLogContextSuffix()}`; // "User saved requestId=r-1 userId=42"
 * formatLogContextSuffix({ jobId: "nightly" }, { shard: "2" }); // " jobId=nightly shard=2"
 */
export function formatLogContextSuffix(
  context: LogContext = getCurrentLogContext(),
  labels: Readonly<Record<string, string>> = {},
): string {
  const pairs: string[] = [];
  for (const field of CORRELATION_FIELDS) {
    const value = context[field];
    if (value !== undefined) pairs.push(`${field}=${quote(value)}`);
  }
  for (const [key, value] of Object.entries(labels)) pairs.push(`${key}=${quote(value)}`);
  return pairs.length === 0 ? "" : ` ${pairs.join(" ")}`;
}

function quote(value: string): string {
  return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
}
