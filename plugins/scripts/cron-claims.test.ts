// Exclusive cron jobs: an app run as several processes on one database runs each scheduled run
// once. Two handles of one job in this process stand for two processes (each claims through the
// database as another process would). The schedule is real; only `Date` is moved (fake-timers,
// advancing with real time) to just before a minute, so the tick comes within a second.
import test from "ava";
import FakeTimers from "@sinonjs/fake-timers";
import { InMemoryErrorTracker } from "../../adapters/error-tracker/in-memory.js";
import { createTestApp, startTestDatabase, stopTestDatabase, withFailPoint } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { createSvcLogger, LogCapture } from "../logging/index.js";
import { claimCronRun, cronjob, cronRunModel, ScriptErrors, type CronjobHandle } from "../../index.js";

const app = createTestApp().then(async (created) => {
  await created.build();
  return created;
});
test.after.always(async () => {
  await (await app).stop();
  await stopTestDatabase();
});

const MINUTE = 60_000;

/** Moves `Date` to 300 ms before the next whole minute (advancing with real time) while `fn` runs; resolves with that minute. */
async function nearAMinute<T>(fn: (minute: Date) => Promise<T>): Promise<T> {
  const minute = new Date((Math.floor(Date.now() / MINUTE) + 1) * MINUTE);
  const clock = FakeTimers.install({ now: minute.getTime() - 300, toFake: ["Date"], shouldAdvanceTime: true, advanceTimeDelta: 10 });
  try {
    return await fn(minute);
  } finally {
    clock.uninstall();
  }
}

function observed() {
  const logs = new LogCapture();
  const tracker = new InMemoryErrorTracker();
  return { logs, tracker, options: { logger: createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [logs] }), errorTracker: tracker } };
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 20) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("one claim per job and due time: of concurrent claims one wins; another time or job is another claim", async (t) => {
  await app;
  const due = new Date("2026-11-29T03:00:00.000Z");
  const claims = await Promise.all(Array.from({ length: 5 }, () => claimCronRun("claims-test", due)));
  t.is(claims.filter(Boolean).length, 1);
  t.true(await claimCronRun("claims-test", new Date(due.getTime() + MINUTE)));
  t.true(await claimCronRun("claims-test-other", due));
  t.like(await cronRunModel().findById(`claims-test@${due.toISOString()}`).lean(), { job: "claims-test", scheduledFor: due });
});

test.serial("an exclusive job's scheduled run happens in one of the processes that run it", async (t) => {
  await app;
  const { logs, options } = observed();
  let runs = 0;
  const handles: CronjobHandle[] = [];
  const minute = await nearAMinute(async (minute) => {
    for (let process = 0; process < 2; process++) handles.push(cronjob("* * * * *", () => void runs++, { ...options, name: "digest", exclusive: true }));
    await until(() => logs.lines.some((line) => /runs in another process/.test(line.message)) && runs === 1, "both ticks");
    return minute;
  });
  await Promise.all(handles.map((handle) => handle.stop()));
  t.is(runs, 1);
  t.like(await cronRunModel().findById(`digest@${minute.toISOString()}`).lean(), { job: "digest" });
  // A job that is not exclusive runs in every process, as before.
  let everywhere = 0;
  const plain: CronjobHandle[] = [];
  await nearAMinute(async () => {
    for (let process = 0; process < 2; process++) plain.push(cronjob("* * * * *", () => void everywhere++, { ...options, name: "everywhere" }));
    await until(() => everywhere === 2, "both runs");
  });
  await Promise.all(plain.map((handle) => handle.stop()));
  t.is(everywhere, 2);
});

test.serial("a run whose claim cannot be written is skipped, logged and reported, not run unclaimed", async (t) => {
  const database = await startTestDatabase();
  const { logs, tracker, options } = observed();
  let runs = 0;
  let handle: CronjobHandle | undefined;
  await withFailPoint(database.uri, { mode: "alwaysOn", data: { failCommands: ["insert"], errorCode: 2, errorLabels: [], namespace: `${database.dbName}.svc_cron_runs` } }, () =>
    nearAMinute(async () => {
      handle = cronjob("* * * * *", () => void runs++, { ...options, name: "unclaimable", exclusive: true });
      await until(() => logs.lines.some((line) => line.level === "error"), "the error line");
    }),
  );
  await handle!.stop();
  t.is(runs, 0);
  t.regex(logs.lines.find((line) => line.level === "error")!.message, /Cron job unclaimable: the run due .* could not be claimed and is skipped/);
  t.is(tracker.exceptions.length, 1);
});

test("an exclusive job needs a name: two jobs of one expression would share their claims", (t) => {
  const error = t.throws(() => cronjob("0 3 * * *", () => undefined, { exclusive: true, start: false }));
  t.true(hasErrorCode(error, ScriptErrors.EXCLUSIVE_NAME_REQUIRED));
});
