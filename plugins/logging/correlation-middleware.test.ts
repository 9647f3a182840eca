import test from "ava";
import nock from "nock";
import express from "express";
import request from "supertest";
import { correlationMiddleware, parseCloudTraceContext, parseTraceparent } from "./correlation-middleware.js";
import { getCurrentLogContext } from "./log-context.js";
import { getRequestContext } from "../../kernel/request-context.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

function app() {
  const server = express();
  server.use(correlationMiddleware());
  server.get("/context", async (_req, res) => {
    await new Promise((resolve) => setImmediate(resolve));
    res.json({ ...getCurrentLogContext(), appVersion: getRequestContext()?.appVersion });
  });
  return server;
}

test("x-request-id is adopted and echoed", async (t) => {
  const response = await request(app()).get("/context").set("x-request-id", "req-abc").expect(200);
  t.is(response.headers["x-request-id"], "req-abc");
  t.is(response.body.requestId, "req-abc");
});

test("x-correlation-id is used when there is no x-request-id", async (t) => {
  const response = await request(app()).get("/context").set("x-correlation-id", "corr-1").expect(200);
  t.is(response.body.requestId, "corr-1");
  t.is(response.headers["x-request-id"], "corr-1");
});

test("x-cloud-trace-context gives the request id, trace id and span id", async (t) => {
  const response = await request(app()).get("/context").set("x-cloud-trace-context", `${TRACE}/12345;o=1`).expect(200);
  t.like(response.body, { requestId: TRACE, traceId: TRACE, spanId: "12345" });
});

test("traceparent (W3C) gives the request id, trace id and span id", async (t) => {
  const response = await request(app()).get("/context").set("traceparent", `00-${TRACE}-${SPAN}-01`).expect(200);
  t.like(response.body, { requestId: TRACE, traceId: TRACE, spanId: SPAN });
});

test("an explicit request id wins over trace headers, which still give the trace fields", async (t) => {
  const response = await request(app())
    .get("/context")
    .set("x-request-id", "mine")
    .set("traceparent", `00-${TRACE}-${SPAN}-01`)
    .expect(200);
  t.like(response.body, { requestId: "mine", traceId: TRACE, spanId: SPAN });
});

test("without headers an id is generated; unsafe ids are not adopted", async (t) => {
  const generated = await request(app()).get("/context").expect(200);
  t.regex(generated.body.requestId, /^[0-9a-f-]{36}$/);
  t.is(generated.headers["x-request-id"], generated.body.requestId);
  const forged = await request(app()).get("/context").set("x-request-id", "bad id {level=error}").expect(200);
  t.not(forged.body.requestId, "bad id {level=error}");
  t.regex(forged.body.requestId, /^[0-9a-f-]{36}$/);
});

test("App-Version is captured", async (t) => {
  const response = await request(app()).get("/context").set("App-Version", "1.2.3").expect(200);
  t.is(response.body.appVersion, "1.2.3");
});

test("W3C parsing rejects malformed and all-zero ids", (t) => {
  t.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-01`), { traceId: TRACE, spanId: SPAN });
  t.is(parseTraceparent(`00-${"0".repeat(32)}-${SPAN}-01`), undefined);
  t.is(parseTraceparent(`00-${TRACE}-${"0".repeat(16)}-01`), undefined);
  t.is(parseTraceparent("00-short-span-01"), undefined);
  t.deepEqual(parseCloudTraceContext(TRACE), { traceId: TRACE, spanId: undefined });
  t.is(parseCloudTraceContext("not a trace"), undefined);
});

test("concurrent requests keep their own ids", async (t) => {
  const server = app();
  const ids = Array.from({ length: 20 }, (_, index) => `req-${index}`);
  const responses = await Promise.all(ids.map((id) => request(server).get("/context").set("x-request-id", id)));
  t.deepEqual(
    responses.map((response) => response.body.requestId),
    ids,
  );
});
