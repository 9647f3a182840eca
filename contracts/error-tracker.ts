import { token } from "../kernel/container.js";

/** What is known about the failing unit of work when an error is reported. */
export interface ErrorTrackerContext {
  requestId?: string;
  /** The script or cron job name, for failures outside HTTP requests. */
  jobId?: string;
  userId?: string;
  /** The client's `App-Version` header, reported as the `app_version` tag. */
  appVersion?: string;
  tags?: Record<string, string>;
  extra?: Record<string, unknown>;
}

/** Severity of a mirrored log line. */
export type ErrorTrackerLogLevel = "debug" | "info" | "warn" | "error";

/** A log line mirrored to the tracker (`USE_ERRORTRACKER_LOGGING=true`). */
export interface ErrorTrackerLogEntry {
  level: ErrorTrackerLogLevel;
  message: string;
  /** Flat, primitive attributes (correlation fields, labels); nested values are stringified. */
  attributes?: Record<string, string | number | boolean>;
}

/**
 * The error-tracker port (Sentry in production, a no-op by default, in-memory for tests). The
 * host reports every 5xx with the request id and `app_version`; 4xx responses are never
 * reported. Implementations never throw from `captureException` or `captureLog`: reporting a
 * failure must not cause another one.
 *
 * @example
 * ctx.resolve(ERROR_TRACKER).captureException(error, { requestId: req.requestId, appVersion: "1.2.3" });
 */
export interface ErrorTracker {
  captureException(error: unknown, context?: ErrorTrackerContext): void;
  /** Mirrors one log line to the tracker (used when log mirroring is on). */
  captureLog(entry: ErrorTrackerLogEntry): void;
  /** Waits (bounded) until queued reports are sent, e.g. before a script exits. */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Flushes, then releases the tracker's resources; later captures are dropped. */
  close(timeoutMs?: number): Promise<boolean>;
}

export const ERROR_TRACKER = token<ErrorTracker>("observability.ErrorTracker");
