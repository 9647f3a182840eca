import type { Request, RequestHandler } from "express";
import type { SvcLogger } from "../../kernel/logger.js";
import { redactSecrets, redactUrl } from "./redact-secrets.js";
import { OMIT_BODY_FROM_LOG, QUIET_REQUEST_LOG } from "../../contracts/http.js";
import { getRequestContext, runWithRequestContext } from "../../kernel/request-context.js";

export interface RequestLoggingOptions {
  /** Where request lines go (the app's `LOGGER`). */
  logger: SvcLogger | (() => SvcLogger);
  /** One `info` line per request (false when `DISABLE_LOG_ALL_REQUESTS=true`). Default true. */
  logAllRequests?: boolean;
  /** Requests slower than this get a `warn` line even when request logging is off (`SLOW_REQUEST_THRESHOLD_MS`, default 3000). */
  slowRequestThresholdMs?: number;
  /** Include the (redacted) JSON body in request lines. Default true. */
  logBodies?: boolean;
  /** Milliseconds clock; injectable so tests can make a request "slow" without waiting. */
  now?: () => number;
}

/**
 * The request-logging hook of the middleware stack. It runs right after correlation, before the
 * body parser and authentication, so requests they refuse are logged too; the user is read when
 * the response finishes, by which time authentication has run. Then it writes one line — method, full URL (`req.originalUrl`, so
 * router mount prefixes are included: `/todos/123`, not `/123`; secret query parameters
 * redacted), status, duration, the body with every secret-looking field (`password`, tokens,
 * secrets, API keys, cookies, one-time codes...) redacted at any depth, and `app_version` — in
 * the request's correlation scope. Requests above the slow
 * threshold are logged at `warn` with `slow: true`, whether or not every request is logged.
 *
 * @example
 * const env = readLoggingEnvironment(ctx.config.env);
 * app.use(requestLoggingMiddleware({ logger: () => ctx.logger, logAllRequests: !env.disableLogAllRequests, slowRequestThresholdMs: env.slowRequestThresholdMs }));
 */
export function requestLoggingMiddleware(options: RequestLoggingOptions): RequestHandler {
  const now = options.now ?? (() => performance.now());
  const threshold = options.slowRequestThresholdMs ?? 3000;
  const logAll = options.logAllRequests ?? true;
  const resolveLogger = typeof options.logger === "function" ? options.logger : () => options.logger as SvcLogger;
  return function svcRequestLogging(req, res, next) {
    const started = now();
    const context = getRequestContext();
    let logged = false;
    const finish = (aborted: boolean) => {
      if (logged) return;
      logged = true;
      const durationMs = Math.round((now() - started) * 10) / 10;
      const slow = durationMs > threshold;
      if (!logAll && !slow) return;
      // originalUrl, not url: routers strip their mount path from req.url while they run.
      const url = redactUrl(req.originalUrl || req.url);
      const meta: Record<string, unknown> = {
        method: req.method,
        url,
        status: aborted ? undefined : res.statusCode,
        durationMs,
        app_version: context?.appVersion,
        aborted: aborted || undefined,
        body: options.logBodies === false || res.locals[OMIT_BODY_FROM_LOG] === true ? undefined : loggableBody(req),
      };
      for (const key of Object.keys(meta)) if (meta[key] === undefined) delete meta[key];
      const write = () => {
        const logger = resolveLogger();
        const line = `${req.method} ${url} ${aborted ? "aborted" : res.statusCode} ${durationMs}ms`;
        if (slow) logger.warn(`Slow request: ${line}`, { ...meta, slow: true, slowRequestThresholdMs: threshold });
        else if (res.locals[QUIET_REQUEST_LOG] === true && !aborted && res.statusCode < 400) logger.debug(line, meta);
        else logger.info(line, meta);
      };
      // "finish" may fire outside the request's async scope; log in the scope captured on entry
      // (the same object, so a user id set later by authentication is there).
      if (context) runWithRequestContext(context, write);
      else write();
    };
    res.once("finish", () => finish(false));
    res.once("close", () => finish(!res.writableFinished));
    next();
  };
}

function loggableBody(req: Request): unknown {
  const body: unknown = req.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body === "object" && !Buffer.isBuffer(body) && Object.keys(body).length === 0) return undefined;
  if (Buffer.isBuffer(body)) return `[${body.length} bytes]`;
  return redactSecrets(body);
}
