import test from "ava";
import { setTimeout as sleep } from "node:timers/promises";
import { createSvcLogger } from "./create-logger.js";
import { LogCapture } from "./log-capture.js";
import { formatLogContextSuffix, getCurrentLogContext } from "./log-context.js";
import { getRequestContext, runWithRequestContext } from "../../kernel/request-context.js";

function captured() {
  const capture = new LogCapture();
  const log = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  return { capture, log };
}

test("outside any scope the log context is empty and lines carry no correlation fields", (t) => {
  const { capture, log } = captured();
  t.deepEqual(getCurrentLogContext(), {});
  log.info("hello");
  t.is(capture.lines[0]!.requestId, undefined);
  t.is(capture.lines[0]!.svcRequestLog, undefined);
});

test("every line in a scope carries the correlation fields and svcRequestLog", (t) => {
  const { capture, log } = captured();
  runWithRequestContext(
    { requestId: "r-1", jobId: "j-1", sessionId: "s-1", traceId: "t".repeat(32), spanId: "s".repeat(16) },
    () => log.info("in scope", { extra: 1 }),
  );
  const line = capture.lines[0]!;
  t.like(line, { requestId: "r-1", jobId: "j-1", sessionId: "s-1", traceId: "t".repeat(32), spanId: "s".repeat(16), extra: 1 });
  t.deepEqual(line.svcRequestLog, { requestId: "r-1", userId: null });
});

test("a user id set after the scope began (by authentication) is read at log time", (t) => {
  const { capture, log } = captured();
  runWithRequestContext({ requestId: "r-2" }, () => {
    log.info("before auth");
    getRequestContext()!.userId = "user-42";
    log.info("after auth");
  });
  t.deepEqual(capture.lines[0]!.svcRequestLog, { requestId: "r-2", userId: null });
  t.is(capture.lines[1]!.userId, "user-42");
  t.deepEqual(capture.lines[1]!.svcRequestLog, { requestId: "r-2", userId: "user-42" });
});

test("context follows awaits, timers and promise chains", async (t) => {
  const { capture, log } = captured();
  await runWithRequestContext({ requestId: "r-async" }, async () => {
    await sleep(1);
    log.info("after await");
    await new Promise<void>((resolve) => setImmediate(() => (log.info("in setImmediate"), resolve())));
    await Promise.resolve().then(() => log.info("in then"));
  });
  t.is(capture.lines.length, 3);
  for (const line of capture.lines) t.is(line.requestId, "r-async");
});

test("concurrent scopes never see each other's context", async (t) => {
  const { capture, log } = captured();
  const work = async (id: string, delays: number[]) =>
    runWithRequestContext({ requestId: id, userId: `user-${id}` }, async () => {
      for (const delay of delays) {
        await sleep(delay);
        log.info("step", { expected: id });
      }
    });
  await Promise.all([work("a", [3, 1, 2]), work("b", [1, 3, 1]), work("c", [2, 2, 2])]);
  t.is(capture.lines.length, 9);
  for (const line of capture.lines) {
    t.is(line.requestId, line.expected);
    t.is(line.userId, `user-${String(line.expected)}`);
  }
});

test("reserved keys are protected inside a scope", (t) => {
  const { capture, log } = captured();
  runWithRequestContext({ requestId: "real" }, () =>
    log.info("forged", { requestId: "forged", userId: "someone-else", svcRequestLog: "x", svcLabels: "y", svcLogPrefix: "z" }),
  );
  const line = capture.lines[0]!;
  t.is(line.requestId, "real");
  t.is(line.userId, undefined);
  t.deepEqual(line.svcRequestLog, { requestId: "real", userId: null });
  t.is(line.svcLabels, undefined);
  t.is(line.svcLogPrefix, undefined);
});

test("formatLogContextSuffix renders key=value pairs with a leading space", (t) => {
  t.is(formatLogContextSuffix({}), "");
  t.is(formatLogContextSuffix({ requestId: "r-1", userId: "42" }), " requestId=r-1 userId=42");
  t.is(formatLogContextSuffix({ jobId: "nightly report" }, { shard: "2" }), ' jobId="nightly report" shard=2');
  t.is(
    runWithRequestContext({ requestId: "r-3" }, () => formatLogContextSuffix()),
    " requestId=r-3",
  );
});
