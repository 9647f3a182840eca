import test, { type ExecutionContext } from "ava";
import { MongoClient, type ChangeStreamDocument, type Document } from "mongodb";
import { startEmbeddedMongo } from "../../adapters/embedded-mongo/index.js";
import { runsOnTheEmbeddedEngineOnly } from "../../test/support/engine-only.js";
import { DeltaFeed, type FeedGap } from "./delta-feed.js";

// The feed's recovery paths. Losing change-stream history cannot be arranged on a real MongoDB
// from a test (its oplog is gigabytes), so this file starts an embedded engine of its own with a
// five-entry history: the resume token then falls out of it for real (ChangeStreamHistoryLost 286).
runsOnTheEmbeddedEngineOnly(import.meta.url, "losing change-stream history needs an engine with a five-entry oplog (oplogCapacity)");

function recorder() {
  const lines: string[] = [];
  const logger = { debug: (line: string) => void lines.push(line), info: (line: string) => void lines.push(line), warn: (line: string) => void lines.push(line), error: (line: string) => void lines.push(line) };
  const waitFor = async (pattern: RegExp) => {
    for (let attempt = 0; attempt < 3000 && !lines.some((line) => pattern.test(line)); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return { lines, logger, waitFor };
}

/** The feed noticed its stream broke (closed while reading, or while its first aggregate ran). */
const BROKE = /change stream failed|could not reopen the change stream/;

/** An engine of the test's own (with `options`), its `feed` database and an `items` collection. */
async function itemsDatabase(t: ExecutionContext, options: { oplogCapacity?: number }) {
  const engine = await startEmbeddedMongo(options);
  const client = await new MongoClient(engine.uri).connect();
  t.teardown(async () => {
    await client.close();
    await engine.stop();
  });
  const db = client.db("feed");
  await db.createCollection("items");
  return db;
}

test("a feed that cannot resume (history lost) reopens from now, reports the gap and keeps delivering", async (t) => {
  const db = await itemsDatabase(t, { oplogCapacity: 5 });
  const { lines, logger, waitFor } = recorder();
  const changes: ChangeStreamDocument<Document>[] = [];
  const gaps: FeedGap[] = [];
  const feed = new DeltaFeed({ db, collections: ["items"], logger, retryDelayMs: 1500, onChange: (change) => void changes.push(change), onGap: (gap) => void gaps.push(gap) });
  await feed.start();
  t.teardown(() => feed.stop());

  await db.collection("items").insertOne({ _id: "before" as never });
  for (let attempt = 0; attempt < 3000 && changes.length === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  t.is(changes.length, 1);

  // The stream breaks; while the feed waits to reopen, more is written than the history keeps.
  await (feed as unknown as { stream: { close(): Promise<void> } }).stream.close();
  await waitFor(BROKE);
  for (let index = 0; index < 20; index++) await db.collection("items").insertOne({ _id: `lost-${index}` as never });

  await waitFor(/change stream reopened/);
  t.deepEqual(gaps, ["history-lost"]);
  await db.collection("items").insertOne({ _id: "after" as never });
  for (let attempt = 0; attempt < 3000 && !changes.some((change) => "documentKey" in change && String(change.documentKey._id) === "after"); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  t.true(changes.some((change) => "documentKey" in change && String(change.documentKey._id) === "after"), "it keeps delivering");
  t.true(lines.some((line) => /could not reopen the change stream yet/.test(line)), "the failed resume was logged");
});

test("a feed whose stream breaks but can resume loses nothing and reports no gap", async (t) => {
  const db = await itemsDatabase(t, {});
  const { logger, waitFor } = recorder();
  const seen: unknown[] = [];
  const gaps: FeedGap[] = [];
  const feed = new DeltaFeed({ db, collections: ["items"], logger, retryDelayMs: 200, onChange: (change) => void ("documentKey" in change && seen.push(change.documentKey._id)), onGap: (gap) => void gaps.push(gap) });
  await feed.start();
  t.teardown(() => feed.stop());
  await (feed as unknown as { stream: { close(): Promise<void> } }).stream.close();
  await waitFor(BROKE);
  for (let index = 0; index < 5; index++) await db.collection("items").insertOne({ _id: `kept-${index}` as never });
  for (let attempt = 0; attempt < 3000 && seen.length < 5; attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  t.deepEqual(seen, ["kept-0", "kept-1", "kept-2", "kept-3", "kept-4"]);
  t.deepEqual(gaps, []);
});

test("a collection whose post-images were turned off: the update the stream cannot read makes it keep post-images again, start from now and report the gap", async (t) => {
  const db = await itemsDatabase(t, {});
  await db.command({ collMod: "items", changeStreamPreAndPostImages: { enabled: true } });
  const { lines, logger, waitFor } = recorder();
  const seen: string[] = [];
  const gaps: FeedGap[] = [];
  let restored = 0;
  const keepPostImages = async () => {
    restored++;
    await db.command({ collMod: "items", changeStreamPreAndPostImages: { enabled: true } });
  };
  const feed = new DeltaFeed({ db, collections: ["items"], logger, retryDelayMs: 5, keepPostImages, onChange: (change) => void ("documentKey" in change && seen.push(`${change.operationType}:${String(change.documentKey._id)}`)), onGap: (gap) => void gaps.push(gap) });
  await feed.start();
  t.teardown(() => feed.stop());
  await db.collection("items").insertOne({ _id: "a" as never });

  // As after a collection was dropped and re-created by a plain insert, or turned off by hand.
  await db.command({ collMod: "items", changeStreamPreAndPostImages: { enabled: false } });
  await db.collection("items").updateOne({ _id: "a" as never }, { $set: { blind: true } });
  await waitFor(/change stream reopened/);
  t.deepEqual(gaps, ["invalidated"]);
  t.is(restored, 1);
  await db.collection("items").updateOne({ _id: "a" as never }, { $set: { seen: true } });
  for (let attempt = 0; attempt < 3000 && !seen.includes("update:a"); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  t.deepEqual(seen, ["insert:a", "update:a"], "the update after the repair is delivered; the blind one is covered by the gap");
  t.true(lines.some((line) => /change stream failed/.test(line)));
});

test("a watched collection dropped: the feed keeps post-images of it again at once, so its next updates are delivered without a gap", async (t) => {
  const db = await itemsDatabase(t, {});
  const { logger } = recorder();
  const seen: string[] = [];
  const gaps: FeedGap[] = [];
  let restored = 0;
  const keepPostImages = async () => {
    await db.createCollection("items").catch(() => undefined);
    await db.command({ collMod: "items", changeStreamPreAndPostImages: { enabled: true } });
    restored++;
  };
  await keepPostImages();
  restored = 0;
  const feed = new DeltaFeed({ db, collections: ["items"], logger, retryDelayMs: 5, keepPostImages, onChange: (change) => void ("documentKey" in change && seen.push(`${change.operationType}:${String(change.documentKey._id)}`)), onGap: (gap) => void gaps.push(gap) });
  await feed.start();
  t.teardown(() => feed.stop());
  await db.collection("items").insertOne({ _id: "a" as never });
  await db.collection("items").drop();
  for (let attempt = 0; attempt < 3000 && restored === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  t.is(restored, 1);
  await db.collection("items").insertOne({ _id: "b" as never });
  await db.collection("items").updateOne({ _id: "b" as never }, { $set: { x: 1 } });
  for (let attempt = 0; attempt < 3000 && !seen.includes("update:b"); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  t.deepEqual(seen, ["insert:a", "insert:b", "update:b"]);
  t.deepEqual(gaps, []);
});

test("stop() while post-images are being turned on again leaves no change stream open", async (t) => {
  const db = await itemsDatabase(t, {});
  await db.command({ collMod: "items", changeStreamPreAndPostImages: { enabled: true } });
  const { logger } = recorder();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let repairing = false;
  const keepPostImages = async () => {
    repairing = true;
    await released;
    await db.command({ collMod: "items", changeStreamPreAndPostImages: { enabled: true } });
  };
  const feed = new DeltaFeed({ db, collections: ["items"], logger, retryDelayMs: 5, keepPostImages, onChange: () => undefined, onGap: () => undefined });
  await feed.start();
  await db.collection("items").insertOne({ _id: "a" as never });
  await db.command({ collMod: "items", changeStreamPreAndPostImages: { enabled: false } });
  await db.collection("items").updateOne({ _id: "a" as never }, { $set: { blind: true } });
  for (let attempt = 0; attempt < 3000 && !repairing; attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  t.true(repairing);
  const stopped = feed.stop();
  release();
  await stopped;
  const streams = await db
    .client.db("admin")
    .aggregate([{ $currentOp: { idleCursors: true, allUsers: true } }, { $match: { "cursor.originatingCommand.pipeline.0.$changeStream": { $exists: true } } }])
    .toArray();
  t.deepEqual(streams, []);
});
