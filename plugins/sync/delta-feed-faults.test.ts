import test, { type ExecutionContext } from "ava";
import { MongoClient, type ChangeStreamDocument, type Document } from "mongodb";
import { startTestDatabase, stopTestDatabase, withFailPoint, type FailCommandData, type FailPointSpec } from "../../hosts/testing.js";
import { DeltaFeed, type FeedGap } from "./delta-feed.js";

// The sync feed against injected database faults (svc/testing's withFailPoint): a getMore that
// fails with a resumable error, one that fails for good, a connection closed under the stream, and
// a reopening aggregate that fails once. Each test has a database and a client (appName) of its
// own, and its fail points are narrowed to that client, so the file runs on the embedded engine and
// on a real replica set (SVC_TEST_DB_URI) alike; serial, because a server has one failCommand point.
test.after.always(() => stopTestDatabase());

let rigs = 0;
async function feedRig(t: ExecutionContext, options: { retryDelayMs?: number } = {}) {
  const database = await startTestDatabase();
  const appName = `delta-feed-faults-${process.pid}-${++rigs}`;
  const client = await new MongoClient(database.uri, { appName, heartbeatFrequencyMS: 500 }).connect();
  const db = client.db(`${database.dbName}_feed${rigs}`);
  await db.createCollection("items", { changeStreamPreAndPostImages: { enabled: true } });
  const lines: string[] = [];
  /** Every line with its level and meta; `lines` holds those above debug. */
  const entries: Array<{ level: string; line: string; meta?: Record<string, unknown> }> = [];
  const log = (level: string) => (line: string, meta?: Record<string, unknown>) => {
    entries.push({ level, line, meta });
    if (level !== "debug") lines.push(line);
  };
  const logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
  const seen = new Set<string>();
  const gaps: FeedGap[] = [];
  const feed = new DeltaFeed({
    db,
    collections: ["items"],
    logger,
    retryDelayMs: options.retryDelayMs ?? 5,
    onChange: (change: ChangeStreamDocument<Document>) => {
      if ("documentKey" in change) seen.add(String(change.documentKey._id));
    },
    onGap: (gap) => void gaps.push(gap),
  });
  await feed.start();
  t.teardown(async () => {
    await feed.stop();
    await db.dropDatabase();
    await client.close();
  });
  const until = async (condition: () => boolean) => {
    for (let attempt = 0; attempt < 1000 && !condition(); attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
    return condition();
  };
  /**
   * Two writes one after the other: the getMore after the first one's delivery is issued after
   * the fail point was set, so once the second is delivered the fault has happened.
   */
  const twoWritesThrough = async (label: string) => {
    await db.collection("items").insertOne({ _id: `${label}-1` as never });
    const first = await until(() => seen.has(`${label}-1`));
    await db.collection("items").insertOne({ _id: `${label}-2` as never });
    return first && (await until(() => seen.has(`${label}-2`)));
  };
  /** Sets a failCommand point for this rig's client only, runs `fn`, and turns it off. */
  const failing = <T>(mode: FailPointSpec["mode"], data: FailCommandData, fn: () => Promise<T>) => withFailPoint(database.uri, { mode, data: { ...data, appName } }, fn);
  return { db, feed, lines, entries, gaps, seen, until, twoWritesThrough, failing };
}

test.serial("a getMore failing with a resumable error is resumed by the driver: nothing lost, no gap", async (t) => {
  const rig = await feedRig(t);
  // mongod does not label an error failCommand injects into a getMore (it fails before it knows
  // the cursor is a change stream), so the label a real resumable failure carries is given here.
  await rig.failing({ times: 1 }, { failCommands: ["getMore"], errorCode: 91, errorLabels: ["ResumableChangeStreamError"] }, async () => {
    t.true(await rig.twoWritesThrough("resumable"));
  });
  t.false(rig.lines.some((line) => /change stream failed/.test(line)));
  t.deepEqual(rig.gaps, []);
});

test.serial("a getMore failing for good: the feed reopens from its resume token, nothing lost, no gap", async (t) => {
  const rig = await feedRig(t);
  await rig.failing({ times: 1 }, { failCommands: ["getMore"], errorCode: 2 }, async () => {
    t.true(await rig.twoWritesThrough("fatal"));
  });
  t.true(await rig.until(() => rig.lines.some((line) => /change stream reopened/.test(line))));
  t.true(rig.lines.some((line) => /change stream failed, reopening/.test(line)));
  t.deepEqual(rig.gaps, []);
});

test.serial("the connection under the stream closes, and the reopening aggregate fails once too: the feed still loses nothing", async (t) => {
  const rig = await feedRig(t);
  await rig.failing({ times: 1 }, { failCommands: ["getMore"], closeConnection: true }, async () => {
    t.true(await rig.twoWritesThrough("closed"));
  });
  // Two hits: the stream's next getMore, then the aggregate that reopens it.
  await rig.failing({ times: 2 }, { failCommands: ["getMore", "aggregate"], errorCode: 2 }, async () => {
    t.true(await rig.twoWritesThrough("reopen-fails"));
  });
  t.true(rig.entries.some((entry) => /could not reopen the change stream yet/.test(entry.line)));
  t.deepEqual(rig.gaps, []);
});

test.serial("a getMore that keeps failing for good: one warning for the incident, one error after 10 attempts, backoff that keeps growing, one line when it recovers, nothing lost", async (t) => {
  const rig = await feedRig(t, { retryDelayMs: 1 });
  t.true(await rig.twoWritesThrough("before"));
  const failures = () => rig.entries.filter((entry) => entry.level !== "info" && /change stream/.test(entry.line));
  // Each reopen succeeds (the aggregate is not failed) and the next getMore fails again.
  await rig.failing("alwaysOn", { failCommands: ["getMore"], errorCode: 2 }, async () => {
    await rig.db.collection("items").insertOne({ _id: "during" as never });
    t.true(await rig.until(() => failures().length >= 12));
  });
  t.true(await rig.twoWritesThrough("after"));
  t.true(rig.seen.has("during"), "the write made while the stream failed is delivered after it recovers");
  t.is(rig.entries.filter((entry) => entry.level === "warn").length, 1, "one warning for the whole incident");
  t.deepEqual(
    rig.entries.filter((entry) => entry.level === "error").map((entry) => [entry.line, entry.meta?.attempts]),
    [["Sync: the change stream is still failing; no deltas are sent until it recovers", 10]],
    "and one error once it has lasted 10 attempts",
  );
  const delays = failures()
    .filter((entry) => entry.level === "debug")
    .map((entry) => entry.meta?.retryInMs as number);
  // A reopened stream that fails at once is the same incident: the wait is not reset to the first delay.
  t.deepEqual(delays.slice(0, 6), [2, 4, 8, 16, 32, 64]);
  t.is(rig.lines.filter((line) => /change stream reopened/.test(line)).length, 1, "one line when it is back");
  t.deepEqual(rig.gaps, []);
});

test.serial("stop() while the feed waits to retry returns at once instead of after the backoff", async (t) => {
  t.timeout(30_000);
  // Ten minutes: stop() must not wait for it.
  const rig = await feedRig(t, { retryDelayMs: 600_000 });
  await rig.failing("alwaysOn", { failCommands: ["getMore"], errorCode: 2 }, async () => {
    await rig.db.collection("items").insertOne({ _id: "stuck" as never });
    t.true(await rig.until(() => rig.lines.some((line) => /change stream failed/.test(line))));
    await rig.feed.stop();
  });
  t.pass();
});
