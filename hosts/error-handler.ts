import type { ErrorRequestHandler, RequestHandler } from "express";
import type { ErrorResponseBody } from "../kernel/api-error.js";
import { HttpErrors } from "../kernel/http-errors.js";
import type { SvcLogger } from "../kernel/logger.js";
import type { ErrorTracker } from "../contracts/error-tracker.js";
import { getRequestContext } from "../kernel/request-context.js";
import { redactUrl } from "../plugins/logging/redact-secrets.js";
import { toAPIError } from "./error-response.js";

/**
 * The JSON 404 for routes nothing matched.
 *
 * @example
 * app.use(notFoundHandler());
 */
export function notFoundHandler(): RequestHandler {
  return function svcNotFound(req, _res, next) {
    next(HttpErrors.NOT_FOUND({ detail: `${req.method} ${req.path} matches no route` }));
  };
}

export interface ErrorHandlerOptions {
  logger: () => SvcLogger;
  errorTracker: () => ErrorTracker | undefined;
}

/**
 * The one error handler: renders ARCHITECTURE §4's shape
 * `{errors: [{status, title, detail?, code?, source?, meta?}], requestId}` for every error.
 * 5xx details (messages, stacks) go to the log and the error tracker with the request id, never
 * to the client; 4xx are neither logged as errors nor reported. An error whose `meta` has
 * `retryAfterSeconds` (a 429, a 503, an idempotent request still in progress) also sends it as
 * `Retry-After`.
 *
 * @example
 * app.use(errorHandler({ logger: () => logger, errorTracker: () => undefined }));
 */
export function errorHandler(options: ErrorHandlerOptions): ErrorRequestHandler {
  return function svcErrorHandler(error: unknown, req, res, next) {
    const apiError = toAPIError(error);
    const requestId = req.requestId;
    if (apiError.status >= 500) {
      const cause = apiError.cause ?? apiError;
      const context = getRequestContext();
      options.logger().error(`${req.method} ${redactUrl(req.originalUrl)} failed: ${describe(cause)}`, {
        requestId,
        status: apiError.status,
        stack: cause instanceof Error ? cause.stack : undefined,
      });
      if (!apiError.disableExternalErrorTracking) {
        options.errorTracker()?.captureException(cause, {
          requestId,
          userId: context?.userId ?? req.user?.id,
          appVersion: context?.appVersion,
        });
      }
    }
    if (res.headersSent) {
      // Too late for a JSON body: let express close the connection.
      next(error);
      return;
    }
    // A throttle, a busy service or a request still running says when to come back; clients and proxies read the header.
    const retryAfter = apiError.meta?.retryAfterSeconds;
    if (typeof retryAfter === "number") res.setHeader("Retry-After", String(retryAfter));
    const body: ErrorResponseBody = { errors: [apiError.toErrorObject()], requestId };
    res.status(apiError.status).json(body);
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
