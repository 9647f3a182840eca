import test from "ava";
import { InMemoryErrorTracker } from "../../adapters/error-tracker/in-memory.js";
import { ERROR_TRACKER } from "../../contracts/error-tracker.js";
import { SvcApp } from "../../hosts/svc-app.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { createSvcLogger, getCurrentLogContext, LogCapture } from "../logging/index.js";
import { cronExpressionProblem } from "./cron-expression.js";
import { cronjob, type CronjobHandle, type CronjobOptions } from "./cronjob.js";
import { ScriptErrors } from "./errors.js";
import { timeout } from "./timeout.js";

function setup() {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  const tracker = new InMemoryErrorTracker();
  return { capture, tracker, options: { logger, errorTracker: tracker } satisfies CronjobOptions };
}

test("expressions are validated at registration: five fields only", (t) => {
  const { options } = setup();
  for (const expression of ["", "* * * *", "0 * * * * *", "61 * * * *", "* * * * mon-xyz", "every day"]) {
    const error = t.throws(() => cronjob(expression, () => undefined, options), undefined, expression);
    t.true(hasErrorCode(error, ScriptErrors.INVALID_CRON_EXPRESSION), expression);
  }
});

test("an expression no date matches is refused at registration, started or not", (t) => {
  const { options } = setup();
  for (const start of [true, false]) {
    const error = t.throws(() => cronjob("0 3 31 2 *", () => undefined, { ...options, start }));
    t.true(hasErrorCode(error, ScriptErrors.INVALID_CRON_EXPRESSION));
    t.is(error!.message, 'Invalid cron expression "0 3 31 2 *": no date matches it (it would never run). Use five fields: minute hour day-of-month month day-of-week, e.g. "*/5 * * * *"');
  }
});

test("cronExpressionProblem says why an expression would be refused, or nothing", (t) => {
  t.is(cronExpressionProblem("17 3 * * *"), undefined);
  t.is(cronExpressionProblem("0 3 31 2 *"), "no date matches it (it would never run)");
  t.is(cronExpressionProblem("0 * * * * *"), "it has 6 fields, not 5");
});

test("valid five-field expressions register and report their next run", async (t) => {
  const { options } = setup();
  for (const expression of ["* * * * *", "*/5 * * * *", "0 3 * * 1-5", "15 14 1 * *", "0 0 1 1 *"]) {
    const job = cronjob(expression, () => undefined, options);
    t.true(job.nextRun()! > new Date(Date.now() - 1000), expression);
    await job.stop();
    t.is(job.nextRun(), undefined);
  }
});

test("an unknown time zone is refused; a known one is used", async (t) => {
  const { options } = setup();
  const error = t.throws(() => cronjob("0 3 * * *", () => undefined, { ...options, timezone: "Mars/Olympus" }));
  t.true(hasErrorCode(error, ScriptErrors.INVALID_TIMEZONE));
  const job = cronjob("0 3 * * *", () => undefined, { ...options, timezone: "Europe/Berlin" });
  t.teardown(() => job.stop());
  t.truthy(job.nextRun());
});

test("runOnInit runs the job right away, in a scope with its name as jobId", async (t) => {
  const { options } = setup();
  let resolveRun!: (jobId: string | undefined) => void;
  const ran = new Promise<string | undefined>((resolve) => (resolveRun = resolve));
  const job = cronjob("0 0 1 1 *", () => resolveRun(getCurrentLogContext().jobId), { ...options, name: "yearly", runOnInit: true });
  t.teardown(() => job.stop());
  t.is(await ran, "yearly");
});

test("without runOnInit nothing runs at registration", async (t) => {
  const { options } = setup();
  let runs = 0;
  const job = cronjob("0 0 1 1 *", () => void runs++, options);
  await timeout(20);
  await job.stop();
  t.is(runs, 0);
});

test("a run that overlaps the previous one is skipped and logged", async (t) => {
  const { options, capture } = setup();
  let runs = 0;
  let release!: () => void;
  const job = cronjob(
    "0 0 1 1 *",
    async () => {
      runs += 1;
      await new Promise<void>((resolve) => (release = resolve));
    },
    { ...options, name: "slow-job", start: false },
  );
  const first = job.trigger();
  t.true(job.running);
  void job.trigger();
  t.is(runs, 1);
  t.like(capture.lines.find((line) => line.level === "warn"), { jobId: "slow-job" });
  release();
  await first;
  t.false(job.running);
  await job.stop();
});

test("errors are logged and reported, and the schedule keeps going", async (t) => {
  const { options, capture, tracker } = setup();
  let runs = 0;
  const job = cronjob(
    "*/5 * * * *",
    () => {
      runs += 1;
      throw new Error("import failed");
    },
    { ...options, name: "importer" },
  );
  t.teardown(() => job.stop());
  await job.trigger();
  await job.trigger();
  t.is(runs, 2);
  t.is(tracker.exceptions.length, 2);
  t.like(tracker.exceptions[0]!.context, { jobId: "importer", tags: { cron: "*/5 * * * *" } });
  t.is(capture.lines.filter((line) => line.level === "error").length, 2);
  t.truthy(job.nextRun());
});

test("with context: ctx, a job in an app logs to the app's logger and reports to its ERROR_TRACKER", async (t) => {
  const { capture, options } = setup();
  const tracker = new InMemoryErrorTracker();
  let job!: CronjobHandle;
  const app = new SvcApp({ env: { NODE_ENV: "test" }, database: false, logger: options.logger, handleSignals: false })
    .register({
      name: "nightly",
      start(ctx) {
        job = cronjob("0 0 1 1 *", () => Promise.reject(new Error("import failed")), { name: "nightly", start: false, context: ctx });
      },
      stop: () => job.stop(),
    })
    .override(ERROR_TRACKER, { useValue: tracker });
  await app.build();
  t.teardown(() => app.stop());
  await job.trigger();
  t.is(tracker.exceptions.length, 1);
  t.like(tracker.exceptions[0]!.context, { jobId: "nightly" });
  t.true(capture.lines.some((line) => line.level === "error" && String(line.message).includes("Cron job nightly failed")));
  await job.stop();
  tracker.captureException(new Error("still open"));
  t.is(tracker.exceptions.length, 2, "stopping the job leaves the app's tracker open");
});

test("stop waits for the run in progress", async (t) => {
  const { options } = setup();
  let finished = false;
  const job = cronjob(
    "0 0 1 1 *",
    async () => {
      await timeout(20);
      finished = true;
    },
    { ...options, start: false },
  );
  void job.trigger();
  await job.stop();
  t.true(finished);
});

test("trigger after stop runs nothing and logs a warning", async (t) => {
  const { options, capture } = setup();
  let runs = 0;
  const job = cronjob("0 0 1 1 *", () => void runs++, { ...options, name: "stopped-job" });
  await job.stop();
  await job.trigger();
  t.is(runs, 0);
  t.false(job.running);
  t.like(capture.lines.find((line) => line.level === "warn"), { jobId: "stopped-job", message: "Cron job stopped-job is stopped; this run is skipped" });
});

test("timeout resolves after the delay (and treats negatives as zero)", async (t) => {
  t.is(await timeout(1), undefined);
  t.is(await timeout(-5), undefined);
});
