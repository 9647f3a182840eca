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
  await withFailPoint(database.uri, { mode: { times: 1 }, data: { failCommands: ["getMore"], errorCode: 10107, namespace: flagsNamespace() } }, async () => {
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
