import test from "ava";
import { hasErrorCode } from "../../kernel/errors.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { LoggingErrors } from "./errors.js";
import { createFeatureFlaggedLogger } from "./feature-flagged-logger.js";

function recorder() {
  const calls: Array<{ level: string; message: string; meta?: Record<string, unknown> }> = [];
  const target: SvcLogger = {
    debug: (message, meta) => calls.push({ level: "debug", message, meta }),
    info: (message, meta) => calls.push({ level: "info", message, meta }),
    warn: (message, meta) => calls.push({ level: "warn", message, meta }),
    error: (message, meta) => calls.push({ level: "error", message, meta }),
  };
  return { calls, target };
}

test("lines pass while enabled and are dropped while disabled; the flag is read on every call", (t) => {
  const { calls, target } = recorder();
  let on = true;
  let checks = 0;
  const log = createFeatureFlaggedLogger({ isEnabled: () => (checks++, on), target });
  log.debug("d");
  log.info("i");
  log.warn("w");
  log.error("e");
  on = false;
  log.debug("d2");
  log.info("i2");
  log.warn("w2");
  log.error("e2");
  t.deepEqual(calls.map((call) => call.message), ["d", "i", "w", "e"]);
  t.is(checks, 8);
  t.false(log.enabled);
});

test("catch records errors while disabled unless gateCatch is set", (t) => {
  const open = recorder();
  createFeatureFlaggedLogger({ isEnabled: () => false, target: open.target }).catch(new TypeError("boom"), "Evaluation failed");
  t.is(open.calls.length, 1);
  t.like(open.calls[0], { level: "error", message: "Evaluation failed" });
  t.like(open.calls[0]!.meta, { error: { name: "TypeError", message: "boom" } });

  const gated = recorder();
  createFeatureFlaggedLogger({ isEnabled: () => false, target: gated.target, gateCatch: true }).catch(new Error("x"));
  t.is(gated.calls.length, 0);
  createFeatureFlaggedLogger({ isEnabled: () => true, target: gated.target, gateCatch: true }).catch("plain string");
  t.like(gated.calls[0], { level: "error", message: "plain string" });
});

test("a throwing flag check counts as disabled; a missing one is refused", (t) => {
  const { calls, target } = recorder();
  createFeatureFlaggedLogger({
    isEnabled: () => {
      throw new Error("flag store down");
    },
    target,
  }).info("x");
  t.is(calls.length, 0);
  const error = t.throws(() => createFeatureFlaggedLogger({} as never));
  t.true(hasErrorCode(error, LoggingErrors.INVALID_FEATURE_FLAG_CHECK));
});
