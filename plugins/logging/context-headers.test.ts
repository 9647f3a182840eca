import test from "ava";
import { getCurrentRequestContextAttributes } from "./context-headers.js";
import { runWithRequestContext } from "../../kernel/request-context.js";

test("no scope, no headers", (t) => {
  t.deepEqual(getCurrentRequestContextAttributes(), {});
});

test("the request id, job id and a W3C traceparent are forwarded", (t) => {
  const traceId = "0af7651916cd43dd8448eb211c80319c";
  const spanId = "b7ad6b7169203331";
  const headers = runWithRequestContext({ requestId: "r-1", jobId: "nightly", traceId, spanId, userId: "u" }, () =>
    getCurrentRequestContextAttributes(),
  );
  t.deepEqual(headers, {
    "x-request-id": "r-1",
    "x-correlation-id": "r-1",
    "x-job-id": "nightly",
    traceparent: `00-${traceId}-${spanId}-01`,
  });
});

test("non-W3C span ids (from X-Cloud-Trace-Context) give no traceparent", (t) => {
  const headers = runWithRequestContext({ requestId: "r-2", traceId: "a".repeat(32), spanId: "12345" }, () =>
    getCurrentRequestContextAttributes(),
  );
  t.false("traceparent" in headers);
});
