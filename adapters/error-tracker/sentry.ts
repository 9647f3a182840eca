import * as Sentry from "@sentry/node";
import type { ErrorTracker, ErrorTrackerContext, ErrorTrackerLogEntry } from "../../contracts/error-tracker.js";

export interface SentryErrorTrackerOptions {
  /** `ERRORTRACKER_DSN`. */
  dsn: string;
  /** `ERRORTRACKER_TRACES_SAMPLE_RATE` (0–1, default 0.1). */
  tracesSampleRate?: number;
  /** Reported as the Sentry environment (default `NODE_ENV`). */
  environment?: string;
  release?: string;
  /** Replace how envelopes are sent (a proxy, or an in-memory transport in tests). */
  transport?: Sentry.NodeOptions["transport"];
  /** Sentry integrations for this client; default: linked errors, dedupe, Node context. */
  integrations?: Extract<Sentry.NodeOptions["integrations"], readonly unknown[]>;
  /**
   * Report through a client you initialised yourself (e.g. `Sentry.init` in an `--import` file
   * for tracing); it is not closed when the app stops.
   */
  client?: Sentry.NodeClient;
}

/**
 * The Sentry adapter of the error-tracker port. It uses its own `NodeClient` and scope rather
 * than `Sentry.init`, so it installs no global hooks and several apps can live in one process;
 * pass `client` to report through a globally initialised Sentry instead. Exceptions carry the
 * tags `request_id`, `job_id`, `app_version` and the user id.
 *
 * @example
 * const tracker = createSentryErrorTracker({ dsn: process.env.ERRORTRACKER_DSN!, tracesSampleRate: 0.1 });
 * tracker.captureException(error, { requestId: "r-1", appVersion: "1.2.3" });
 * await tracker.flush(2000);
 */
export function createSentryErrorTracker(options: SentryErrorTrackerOptions): ErrorTracker {
  const ownsClient = options.client === undefined;
  const client =
    options.client ??
    new Sentry.NodeClient({
      dsn: options.dsn,
      tracesSampleRate: options.tracesSampleRate ?? 0.1,
      environment: options.environment ?? process.env.NODE_ENV,
      release: options.release,
      transport: options.transport ?? Sentry.makeNodeTransport,
      stackParser: Sentry.defaultStackParser,
      integrations: options.integrations ?? [
        Sentry.linkedErrorsIntegration(),
        Sentry.dedupeIntegration(),
        Sentry.nodeContextIntegration(),
      ],
    });
  const baseScope = new Sentry.Scope();
  baseScope.setClient(client);
  if (ownsClient) client.init();
  let closed = false;

  return {
    captureException(error: unknown, context: ErrorTrackerContext = {}) {
      if (closed) return;
      try {
        const scope = baseScope.clone();
        if (context.requestId) scope.setTag("request_id", context.requestId);
        if (context.jobId) scope.setTag("job_id", context.jobId);
        if (context.appVersion) scope.setTag("app_version", context.appVersion);
        if (context.userId) scope.setUser({ id: context.userId });
        if (context.tags) scope.setTags(context.tags);
        if (context.extra) scope.setExtras(context.extra);
        scope.captureException(error);
      } catch {
        // Reporting must never raise a second failure.
      }
    },
    captureLog(entry: ErrorTrackerLogEntry) {
      if (closed) return;
      try {
        Sentry.logger[entry.level](entry.message, entry.attributes, { scope: baseScope });
      } catch {
        // As above.
      }
    },
    async flush(timeoutMs = 2000) {
      return client.flush(timeoutMs);
    },
    async close(timeoutMs = 2000) {
      if (closed) return true;
      closed = true;
      return ownsClient ? client.close(timeoutMs) : client.flush(timeoutMs);
    },
  };
}
