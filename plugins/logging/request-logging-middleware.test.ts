import test from "ava";
import nock from "nock";
import express from "express";
import request from "supertest";
import { correlationMiddleware } from "./correlation-middleware.js";
import { createSvcLogger } from "./create-logger.js";
import { LogCapture } from "./log-capture.js";
import { requestLoggingMiddleware } from "./request-logging-middleware.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

/** A clock that advances by `step` ms on every read: the request "takes" exactly `step` ms. */
function steppingClock(step: number) {
  let now = 0;
  return () => (now += step);
}

function app(options: { step: number; threshold: number; logAll?: boolean; logBodies?: boolean }) {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  const server = express();
  server.use(correlationMiddleware());
  server.use(express.json());
  server.use(
    requestLoggingMiddleware({
      logger,
      now: steppingClock(options.step),
      slowRequestThresholdMs: options.threshold,
      logAllRequests: options.logAll,
      logBodies: options.logBodies,
    }),
  );
  server.post("/echo", (req, res) => res.json(req.body));
  return { server, capture };
}

test("a request at the threshold is not slow; above it is", async (t) => {
  const atThreshold = app({ step: 3000, threshold: 3000 });
  await request(atThreshold.server).post("/echo").send({ a: 1 }).expect(200);
  t.like(atThreshold.capture.lines[0], { level: "info", durationMs: 3000 });
  const above = app({ step: 3001, threshold: 3000 });
  await request(above.server).post("/echo").send({ a: 1 }).expect(200);
  t.like(above.capture.lines[0], { level: "warn", slow: true, durationMs: 3001 });
});

test("bodies can be left out of request lines", async (t) => {
  const { server, capture } = app({ step: 1, threshold: 3000, logBodies: false });
  await request(server).post("/echo").send({ password: "x" }).expect(200);
  t.is(capture.lines[0]!.body, undefined);
});

test("with logAllRequests false only slow requests are logged", async (t) => {
  const fast = app({ step: 1, threshold: 3000, logAll: false });
  await request(fast.server).post("/echo").send({}).expect(200);
  t.is(fast.capture.lines.length, 0);
  const slow = app({ step: 5000, threshold: 3000, logAll: false });
  await request(slow.server).post("/echo").send({}).expect(200);
  t.is(slow.capture.lines.length, 1);
});
