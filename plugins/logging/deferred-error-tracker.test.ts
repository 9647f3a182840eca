import test from "ava";
import { InMemoryErrorTracker } from "../../adapters/error-tracker/in-memory.js";
import { loadConfig } from "../../kernel/config.js";
import { deferredErrorTracker } from "./deferred-error-tracker.js";
import { createErrorTrackerFromConfig } from "./error-tracker-from-config.js";

test("captures made while the tracker loads are replayed in order once it is ready", async (t) => {
  const real = new InMemoryErrorTracker();
  let finishLoading!: () => void;
  const loading = new Promise<typeof real>((resolve) => (finishLoading = () => resolve(real)));
  const tracker = deferredErrorTracker(loading);
  tracker.captureException(new Error("first"), { requestId: "r1" });
  tracker.captureLog({ level: "warn", message: "careful" });
  t.is(real.exceptions.length, 0);
  finishLoading();
  await tracker.flush();
  t.deepEqual(real.exceptions.map((entry) => (entry.error as Error).message), ["first"]);
  t.is(real.logs[0]!.message, "careful");
  tracker.captureException(new Error("second"));
  t.is(real.exceptions.length, 2, "after loading, captures go straight through");
});

test("a tracker that fails to load drops reports instead of failing", async (t) => {
  const tracker = deferredErrorTracker(Promise.reject(new Error("no such module")));
  t.notThrows(() => tracker.captureException(new Error("lost")));
  t.true(await tracker.flush());
  t.true(await tracker.close());
});

test("the configured tracker: no-op when tracking is off, Sentry (loaded on demand) when on", async (t) => {
  const off = createErrorTrackerFromConfig(loadConfig({ NODE_ENV: "test" }));
  t.true(await off.flush());
  const on = createErrorTrackerFromConfig(
    loadConfig({ NODE_ENV: "test", USE_ERRORTRACKER_LOGGING: "true", ERRORTRACKER_DSN: "https://key@o1.ingest.example.com/1" }),
  );
  t.notThrows(() => on.captureException(new Error("queued until Sentry loads")));
  // Closing waits for the SDK to load, then closes it (nothing is sent: the DSN host is fake and
  // the event is dropped by the bounded close).
  t.true(typeof (await on.close(10)) === "boolean");
});
