import { randomUUID } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { runWithRequestContext, type RequestContext } from "../../kernel/request-context.js";

/** Header values we adopt as ids must be short and plain, so they cannot forge log lines. */
const SAFE_ID = /^[A-Za-z0-9._:\-]{1,128}$/;
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const CLOUD_TRACE = /^([0-9a-fA-F]{32})(?:\/(\d{1,20}))?(?:;o=[01])?$/;

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() || undefined;
}

/** W3C `traceparent` → trace and span ids (all-zero ids are invalid per the spec). */
export function parseTraceparent(value: string | undefined): { traceId: string; spanId: string } | undefined {
  const match = value ? TRACEPARENT.exec(value.toLowerCase()) : null;
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return undefined;
  return { traceId: match[1]!, spanId: match[2]! };
}

/** `X-Cloud-Trace-Context: TRACE_ID/SPAN_ID;o=1` → trace and span ids. */
export function parseCloudTraceContext(value: string | undefined): { traceId: string; spanId?: string } | undefined {
  const match = value ? CLOUD_TRACE.exec(value) : null;
  return match ? { traceId: match[1]!.toLowerCase(), spanId: match[2] } : undefined;
}

/**
 * Derives the correlation context of an incoming request. The request id comes from
 * `x-request-id`, then `x-correlation-id`, then the trace id of `x-cloud-trace-context`, then of
 * `traceparent`; otherwise a UUID is generated.
 *
 * @example
 * correlationFromHeaders(req).requestId;
 */
export function correlationFromHeaders(req: Request): RequestContext {
  const traceparent = parseTraceparent(header(req, "traceparent"));
  const cloud = parseCloudTraceContext(header(req, "x-cloud-trace-context"));
  const explicit = [header(req, "x-request-id"), header(req, "x-correlation-id")].find(
    (value) => value !== undefined && SAFE_ID.test(value),
  );
  const appVersion = header(req, "app-version");
  return {
    requestId: explicit ?? cloud?.traceId ?? traceparent?.traceId ?? randomUUID(),
    traceId: traceparent?.traceId ?? cloud?.traceId,
    spanId: traceparent?.spanId ?? cloud?.spanId,
    appVersion: appVersion && SAFE_ID.test(appVersion) ? appVersion : undefined,
  };
}

/**
 * First middleware of the stack: establishes the request context for everything downstream and
 * echoes the id as `X-Request-ID`.
 *
 * @example
 * app.use(correlationMiddleware());
 */
export function correlationMiddleware(): RequestHandler {
  return function svcCorrelation(req, res, next) {
    const context = correlationFromHeaders(req);
    req.requestId = context.requestId;
    res.setHeader("X-Request-ID", context.requestId!);
    runWithRequestContext(context, next);
  };
}
