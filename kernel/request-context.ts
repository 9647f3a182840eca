import { AsyncLocalStorage } from "node:async_hooks";

// The request context is a core facility: hosts open it, authentication fills it and every plugin
// reads it (log lines, error reports, outbound headers), so it lives in the kernel.

/**
 * Correlation data for the unit of work in progress (an HTTP request, a job, a script run).
 * Fields are filled as they become known: `userId` after authentication, for instance.
 */
export interface RequestContext {
  requestId?: string;
  jobId?: string;
  sessionId?: string;
  userId?: string;
  traceId?: string;
  spanId?: string;
  /** The client's `App-Version` header. */
  appVersion?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * Runs `callback` with `context` as the current request context; it follows every await and
 * callback started inside, and concurrent requests never see each other's context.
 *
 * @example
 * await runWithRequestContext({ jobId: "nightly-report" }, () => sendReports());
 */
export function runWithRequestContext<T>(context: RequestContext, callback: () => T): T {
  return storage.run(context, callback);
}

/**
 * The current context object, if any. It is mutable on purpose: authentication runs after the
 * scope opens and adds `userId`, and every later log line of the request picks it up.
 *
 * @example
 * const context = getRequestContext();
 * if (context) context.userId = user.id;
 */
export function getRequestContext(): RequestContext | undefined {
  return storage.getStore();
}
