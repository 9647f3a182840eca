import test from "ava";
import mongoose from "mongoose";
import { startTestDatabase, stopTestDatabase, withFailPoint } from "../../hosts/testing.js";
import type { TestDatabase } from "../../hosts/testing.js";
import { featureFlagModel } from "./feature-flag-model.js";
import { FlagCache } from "./flag-cache.js";

// The flag cache against injected database faults (svc/testing's withFailPoint): a failed getMore
// on its change stream and a connection closed under it. Fail points are server-wide, so the
// tests run one at a time.

let database: TestDatabase;
test.before(async () => {
  database = await startTestDatabase();
  // A short heartbeat: after a state-change error the driver waits for the next one to reselect.
  await mongoose.connect(database.uri, { dbName: database.dbName, heartbeatFrequencyMS: 500 });
  await featureFlagModel().init();
});
test.after.always(async () => {
  await mongoose.disconnect();
  await stopTestDatabase();
});

let counter = 0;
const uniqueKey = (label: string) => `${label}-${process.pid}-${++counter}`;

async function startedCache(t: import("ava").ExecutionContext) {
  const logged: string[] = [];
  const logger = { debug() {}, info: (m: string) => void logged.push(m), warn: (m: string) => void logged.push(m), error: (m: string) => void logged.push(m) };
  const cache = new FlagCache({ model: featureFlagModel(), logger, retryDelayMs: 5 });
  await cache.start();
  t.teardown(() => cache.stop());
  t.is(cache.mode, "stream");
  return { cache, logged };
}

async function until(condition: () => boolean): Promise<boolean> {
  for (let attempt = 0; attempt < 1000 && !condition(); attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
  return condition();
}

/**
 * Two flags made one after the other while the fail point is set: the getMore that follows the
 * first one's delivery is issued after the point was set, so by the time the second flag is in the
 * cache the fault has happened (whichever getMore was already waiting when it was set).
 */
async function twoFlagsThroughTheFault(cache: FlagCache, label: string): Promise<boolean> {
  const first = uniqueKey(`${label}-1`);
  const second = uniqueKey(`${label}-2`);
  await featureFlagModel().create({ key: first, name: "First", type: "boolean", enabled: true });
  const firstSeen = await until(() => cache.get(first) !== undefined);
  await featureFlagModel().create({ key: second, name: "Second", type: "boolean", enabled: true });
  return firstSeen && (await until(() => cache.get(second) !== undefined));
}

const flagsNamespace = () => `${database.dbName}.${featureFlagModel().collection.collectionName}`;

test.serial("a getMore failing with a resumable error: the driver resumes the stream and the cache misses nothing", async (t) => {
  const { cache, logged } = await startedCache(t);
  // The label is given, not left to the server: mongod evaluates failCommand before it checks the
  // cursor out, so it cannot tell a change stream's getMore and labels it with nothing (a real
  // getMore failing this way is labelled); the driver resumes only a labelled error.
  const resumable = { failCommands: ["getMore"], errorCode: 10107, errorLabels: ["ResumableChangeStreamError"], namespace: flagsNamespace() };
  await withFailPoint(database.uri, { mode: { times: 1 }, data: resumable }, async () => {
    t.true(await twoFlagsThroughTheFault(cache, "resumable"));
  });
  t.false(logged.some((line) => /change stream failed/.test(line)), "resumed inside the driver, the cache saw no error");
  t.is(cache.mode, "stream");
});

test.serial("a getMore failing with a non-resumable error: the cache reopens from its resume token and loses no change", async (t) => {
  const { cache, logged } = await startedCache(t);
  await withFailPoint(database.uri, { mode: { times: 1 }, data: { failCommands: ["getMore"], errorCode: 2, namespace: flagsNamespace() } }, async () => {
    t.true(await twoFlagsThroughTheFault(cache, "non-resumable"));
  });
  t.true(logged.some((line) => /change stream failed, reopening/.test(line)));
  t.true(await until(() => logged.some((line) => /change stream reopened/.test(line))));
  const later = uniqueKey("after-reopen");
  await featureFlagModel().create({ key: later, name: "After", type: "boolean" });
  t.true(await until(() => cache.get(later) !== undefined), "still following the stream");
  t.is(cache.mode, "stream");
});

test.serial("the connection under the change stream is closed: the cache keeps following", async (t) => {
  const { cache } = await startedCache(t);
  await withFailPoint(database.uri, { mode: { times: 1 }, data: { failCommands: ["getMore"], closeConnection: true, namespace: flagsNamespace() } }, async () => {
    t.true(await twoFlagsThroughTheFault(cache, "closed"));
  });
  const later = uniqueKey("after-close");
  await featureFlagModel().create({ key: later, name: "After", type: "boolean" });
  t.true(await until(() => cache.get(later) !== undefined));
  t.is(cache.mode, "stream");
});

/**
 * A read of the flags that is held after it has read `key` (before its getMore: the collection
 * holds more than the first batch's 101 flags), while `key` is enabled and the cache reads again.
 */
async function heldReadAcrossAnUpdate(label: string, during: (key: string) => Promise<void>): Promise<string> {
  const key = uniqueKey(label);
  await featureFlagModel().create({ key, name: "Held", type: "boolean", enabled: false });
  await featureFlagModel().insertMany(Array.from({ length: 120 }, (_, index) => ({ key: `${key}-filler-${index}`, name: "Filler", type: "boolean" })));
  const block = { failCommands: ["getMore"], blockConnection: true, blockTimeMS: 600, namespace: flagsNamespace() };
  await withFailPoint(database.uri, { mode: { times: 1 }, data: block }, () => during(key));
  await featureFlagModel().deleteMany({ key: new RegExp(`^${key}-filler-`) });
  return key;
}

test.serial("polling: a slow poll is not overlapped by the next, so it never brings back an older state", async (t) => {
  const seen: boolean[] = [];
  const logger = { debug() {}, info() {}, warn() {}, error() {} };
  const cache: FlagCache = new FlagCache({
    model: featureFlagModel(),
    logger,
    forcePolling: true,
    pollIntervalMs: 20,
    onChange: (keys) => {
      for (const changed of keys) if (changed.startsWith("slow-poll-") && !changed.includes("-filler-")) seen.push(cache.get(changed)?.active ?? false);
    },
  });
  await cache.start();
  t.teardown(() => cache.stop());
  const key = await heldReadAcrossAnUpdate("slow-poll", async (held) => {
    await new Promise((resolve) => setTimeout(resolve, 150)); // a poll is held in its getMore by now
    await featureFlagModel().updateOne({ key: held }, { enabled: true });
    await new Promise((resolve) => setTimeout(resolve, 900)); // the held poll ends; later polls run
  });
  t.true(await until(() => cache.get(key)?.active === true));
  // Overlapping polls answered true (a later poll), false (the held one, finishing last), true.
  t.deepEqual(seen.slice(seen.indexOf(true)), [true]);
});

test.serial("reload: a read that started earlier and ends later does not overwrite a newer one", async (t) => {
  const logger = { debug() {}, info() {}, warn() {}, error() {} };
  const cache = new FlagCache({ model: featureFlagModel(), logger, forcePolling: true, pollIntervalMs: 60_000 });
  await cache.start();
  t.teardown(() => cache.stop());
  const key = await heldReadAcrossAnUpdate("slow-reload", async (held) => {
    const older = cache.reload(); // held in its getMore, having read the flag disabled
    await new Promise((resolve) => setTimeout(resolve, 150));
    await featureFlagModel().updateOne({ key: held }, { enabled: true });
    t.true((await cache.reload()).includes(held));
    t.true(cache.get(held)?.active);
    t.deepEqual(await older, []);
  });
  t.true(cache.get(key)?.active, "the newer read stays");
});

test.serial("stop() during the backoff before a reopen ends the wait, and leaves no timer behind", async (t) => {
  // Without stop ending it, this test would wait out the ten-minute backoff.
  t.timeout(60_000);
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
  const before = timers();
  const logged: string[] = [];
  const logger = { debug() {}, info() {}, warn: (m: string) => void logged.push(m), error() {} };
  const cache = new FlagCache({ model: featureFlagModel(), logger, retryDelayMs: 10 * 60_000 });
  await cache.start();
  t.teardown(() => cache.stop());
  await withFailPoint(database.uri, { mode: { times: 1 }, data: { failCommands: ["getMore"], errorCode: 2, namespace: flagsNamespace() } }, async () => {
    await featureFlagModel().create({ key: uniqueKey("backoff"), name: "Backoff", type: "boolean" });
    t.true(await until(() => logged.some((line) => /change stream failed, reopening/.test(line))));
  });
  await cache.stop();
  t.is(cache.mode, "stopped");
  await new Promise((resolve) => setImmediate(resolve));
  t.is(timers(), before);
});
