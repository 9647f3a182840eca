import test, { type ExecutionContext } from "ava";
import { MongoClient, type ChangeStreamDocument, type Document } from "mongodb";
import { startEmbeddedMongo } from "../../adapters/embedded-mongo/index.js";
import { withFailPoint } from "../../hosts/testing.js";
import { DeltaFeed, type FeedGap } from "./delta-feed.js";

// The sync feed against injected database faults (svc/testing's withFailPoint): a getMore that
// fails with a resumable error, one that fails for good, a connection closed under the stream, and
// a reopening aggregate that fails once. Each test has its own engine (fail points are server-wide).

async function feedRig(t: ExecutionContext) {
  const engine = await startEmbeddedMongo({});
  const client = await new MongoClient(engine.uri, { heartbeatFrequencyMS: 500 }).connect();
  const db = client.db("feed");
  await db.createCollection("items", { changeStreamPreAndPostImages: { enabled: true } });
  const lines: string[] = [];
  const logger = { debug() {}, info: (line: string) => void lines.push(line), warn: (line: string) => void lines.push(line), error: (line: string) => void lines.push(line) };
  const seen = new Set<string>();
  const gaps: FeedGap[] = [];
  const feed = new DeltaFeed({
    db,
    collections: ["items"],
    logger,
    retryDelayMs: 5,
    onChange: (change: ChangeStreamDocument<Document>) => {
      if ("documentKey" in change) seen.add(String(change.documentKey._id));
    },
    onGap: (gap) => void gaps.push(gap),
  });
  await feed.start();
  t.teardown(async () => {
    await feed.stop();
    await client.close();
    await engine.stop();
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
  return { uri: engine.uri, db, lines, gaps, seen, until, twoWritesThrough };
}

test("a getMore failing with a resumable error is resumed by the driver: nothing lost, no gap", async (t) => {
  const rig = await feedRig(t);
  await withFailPoint(rig.uri, { mode: { times: 1 }, data: { failCommands: ["getMore"], errorCode: 91 } }, async () => {
    t.true(await rig.twoWritesThrough("resumable"));
  });
  t.false(rig.lines.some((line) => /change stream failed/.test(line)));
  t.deepEqual(rig.gaps, []);
});

test("a getMore failing for good: the feed reopens from its resume token, nothing lost, no gap", async (t) => {
  const rig = await feedRig(t);
  await withFailPoint(rig.uri, { mode: { times: 1 }, data: { failCommands: ["getMore"], errorCode: 2 } }, async () => {
    t.true(await rig.twoWritesThrough("fatal"));
  });
  t.true(await rig.until(() => rig.lines.some((line) => /change stream reopened/.test(line))));
  t.true(rig.lines.some((line) => /change stream failed, reopening/.test(line)));
  t.deepEqual(rig.gaps, []);
});

test("the connection under the stream closes, and the reopening aggregate fails once too: the feed still loses nothing", async (t) => {
  const rig = await feedRig(t);
  await withFailPoint(rig.uri, { mode: { times: 1 }, data: { failCommands: ["getMore"], closeConnection: true } }, async () => {
    t.true(await rig.twoWritesThrough("closed"));
  });
  // Two hits: the stream's next getMore, then the aggregate that reopens it.
  await withFailPoint(rig.uri, { mode: { times: 2 }, data: { failCommands: ["getMore", "aggregate"], errorCode: 2 } }, async () => {
    t.true(await rig.twoWritesThrough("reopen-fails"));
  });
  t.true(rig.lines.some((line) => /could not reopen the change stream yet/.test(line)));
  t.deepEqual(rig.gaps, []);
});
