import { getRequestContext } from "../../kernel/request-context.js";

const W3C_TRACE_ID = /^[0-9a-f]{32}$/;
const W3C_SPAN_ID = /^[0-9a-f]{16}$/;

/**
 * The headers that carry the current correlation to a downstream service: `x-request-id` and
 * `x-correlation-id` (the request id), `x-job-id`, and a W3C `traceparent` when the trace and span
 * ids are in W3C form. Another svc service adopts the request id from `x-request-id`, so one id
 * follows a request across services. `{}` outside any scope. The outbound HTTP client adds these
 * to every call; use this for other transports (queues, `fetch`).
 *
 * @example
 * await fetch(url, { headers: { ...getCurrentRequestContextAttributes(), accept: "application/json" } });
 */
export function getCurrentRequestContextAttributes(): Record<string, string> {
  const context = getRequestContext();
  const headers: Record<string, string> = {};
  if (!context) return headers;
  if (context.requestId) {
    headers["x-request-id"] = context.requestId;
    headers["x-correlation-id"] = context.requestId;
  }
  if (context.jobId) headers["x-job-id"] = context.jobId;
  const traceId = context.traceId?.toLowerCase();
  const spanId = context.spanId?.toLowerCase();
  if (traceId && spanId && W3C_TRACE_ID.test(traceId) && W3C_SPAN_ID.test(spanId)) {
    // We forward the caller's span as parent: we do not create spans of our own.
    headers.traceparent = `00-${traceId}-${spanId}-01`;
  }
  return headers;
}
