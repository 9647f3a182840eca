import { token } from "../kernel/container.js";

/** What is known about the failing unit of work when an error is reported. */
export interface ErrorTrackerContext {
  requestId?: string;
  userId?: string;
  /** The client's `App-Version` header, reported as `app_version`. */
  appVersion?: string;
  tags?: Record<string, string>;
  extra?: Record<string, unknown>;
}

/**
 * The error-tracker port (Sentry in production, a no-op by default). The host reports every
 * 5xx; 4xx responses are never reported.
 *
 * @example
 * ctx.resolve(ERROR_TRACKER).captureException(error, { requestId: req.requestId });
 */
export interface ErrorTracker {
  captureException(error: unknown, context?: ErrorTrackerContext): void;
  /** Waits (bounded) until queued reports are sent, e.g. before a script exits. */
  flush(timeoutMs?: number): Promise<boolean>;
}

export const ERROR_TRACKER = token<ErrorTracker>("observability.ErrorTracker");
