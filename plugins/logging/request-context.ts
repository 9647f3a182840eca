import { AsyncLocalStorage } from "node:async_hooks";

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

/** The current context object (mutable, so later middleware can add `userId`), if any. */
export function getRequestContext(): RequestContext | undefined {
  return storage.getStore();
}
