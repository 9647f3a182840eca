import test from "ava";
import { hasErrorCode } from "../../kernel/errors.js";
import { createSvcLogger } from "./create-logger.js";
import { LoggingErrors } from "./errors.js";
import { LogCapture } from "./log-capture.js";
import { logger } from "./logger.js";
import { runWithRequestContext } from "../../kernel/request-context.js";
import { createScopedLogger } from "./scoped-logger.js";

function captured() {
  const capture = new LogCapture();
  const log = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  return { capture, log };
}

test("with neither prefix nor labels it returns the global logger itself", (t) => {
  t.is(createScopedLogger(), logger);
  t.is(createScopedLogger({ prefix: "", labels: {} }), logger);
  t.is(createScopedLogger({ labels: { gone: undefined } }), logger);
});

test("lines carry svcLogPrefix and labels normalised to strings, plus the correlation fields", (t) => {
  const { capture, log } = captured();
  const scoped = createScopedLogger({
    logger: log,
    prefix: "billing",
    labels: { shard: 3, dryRun: false, big: 10n, at: new Date("2026-01-01T00:00:00Z"), none: null },
  });
  runWithRequestContext({ requestId: "r-9" }, () => scoped.warn("Invoice sent", { invoice: "in_1" }));
  t.like(capture.lines[0], { level: "warn", message: "Invoice sent", invoice: "in_1", requestId: "r-9", svcLogPrefix: "billing" });
  t.deepEqual(capture.lines[0]!.svcLabels, {
    shard: "3",
    dryRun: "false",
    big: "10",
    at: "2026-01-01T00:00:00.000Z",
    none: "null",
  });
});

test("callers cannot overwrite the scope through metadata", (t) => {
  const { capture, log } = captured();
  createScopedLogger({ logger: log, prefix: "p", labels: { a: "1" } }).info("x", { svcLogPrefix: "evil", svcLabels: { a: "2" } });
  t.is(capture.lines[0]!.svcLogPrefix, "p");
  t.deepEqual(capture.lines[0]!.svcLabels, { a: "1" });
});

test("nested scoped loggers merge labels and keep the inner prefix", (t) => {
  const { capture, log } = captured();
  const outer = createScopedLogger({ logger: log, prefix: "outer", labels: { a: "1" } });
  createScopedLogger({ logger: outer, prefix: "inner", labels: { b: 2 } }).info("x");
  t.is(capture.lines[0]!.svcLogPrefix, "inner");
  t.deepEqual(capture.lines[0]!.svcLabels, { a: "1", b: "2" });
});

test("reserved label keys are refused", (t) => {
  for (const key of ["requestId", "userId", "svcLabels", "svcRequestLog", "svcLogPrefix", "traceId"]) {
    const error = t.throws(() => createScopedLogger({ labels: { [key]: "x" } }));
    t.true(hasErrorCode(error, LoggingErrors.RESERVED_LABEL), key);
  }
});
