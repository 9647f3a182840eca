import test from "ava";
import { deserialize, Long, serialize, Timestamp } from "bson";
import type { Document } from "bson";
import type { Engine } from "../engine.js";
import { encodeResumeToken } from "./resume-token.js";
import { engineFor, runOk } from "../test-support/in-process-engine.js";

// In-process tests of `$changeStream`: exact event shapes, stream kinds, options and their errors,
// resume points, history limits, awaitData and killing. Driver-level tests: change-streams.e2e.test.ts.

/** Runs a command that must fail; returns its code. */
async function failure(engine: Engine, db: string, command: Document): Promise<number> {
  const reply = await engine.runCommand(db, command);
  if (reply["ok"] !== 0) throw new Error(`${Object.keys(command)[0]} unexpectedly succeeded`);
  return reply["code"] as number;
}

interface Stream {
  readonly db: string;
  readonly collection: string;
  id: Long;
  /** Events received so far (all batches). */
  readonly events: Document[];
  /** The last batch's postBatchResumeToken. */
  token: Document;
}

/** Opens a change stream (`target`: a collection name or 1). */
async function watch(engine: Engine, db: string, target: string | 1, spec: Document = {}, stages: Document[] = [], cursor: Document = {}): Promise<Stream> {
  const reply = await runOk(engine, db, { aggregate: target, pipeline: [{ $changeStream: spec }, ...stages], cursor });
  const ns = reply["cursor"]["ns"] as string;
  return {
    db,
    collection: ns.slice(ns.indexOf(".") + 1),
    id: Long.fromValue(reply["cursor"]["id"]),
    events: [...reply["cursor"]["firstBatch"]],
    token: reply["cursor"]["postBatchResumeToken"],
  };
}

/** One getMore (waiting at most `maxTimeMS`); returns that batch's events. */
async function next(engine: Engine, stream: Stream, extra: Document = {}): Promise<Document[]> {
  if (stream.id.isZero()) return [];
  const reply = await runOk(engine, stream.db, { getMore: stream.id, collection: stream.collection, maxTimeMS: 1, ...extra });
  const batch = reply["cursor"]["nextBatch"] as Document[];
  stream.id = Long.fromValue(reply["cursor"]["id"]);
  stream.events.push(...batch);
  stream.token = reply["cursor"]["postBatchResumeToken"];
  return batch;
}

const types = (events: Document[]): string[] => events.map((event) => event["operationType"] as string);

test("collection stream: insert, update, replace, delete, drop and invalidate with MongoDB's event shapes", async (t) => {
  const engine = engineFor(t);
  const stream = await watch(engine, "app", "todos");
  t.deepEqual(stream.events, []);
  t.deepEqual(Object.keys(stream.token), ["_data"], "the first batch already has a postBatchResumeToken");
  const inserted = await runOk(engine, "app", { insert: "todos", documents: [{ _id: 1, title: "a", tags: ["x", "y", "z"], sub: { k: 1 } }] });
  await runOk(engine, "app", { update: "todos", updates: [{ q: { _id: 1 }, u: { $set: { title: "b", "sub.k": 2 }, $unset: { gone: "" }, $pop: { tags: 1 } } }] });
  await runOk(engine, "app", { update: "todos", updates: [{ q: { _id: 1 }, u: { $unset: { title: "" } } }] });
  await runOk(engine, "app", { update: "todos", updates: [{ q: { _id: 1 }, u: { title: "replaced" } }] });
  await runOk(engine, "app", { delete: "todos", deletes: [{ q: { _id: 1 }, limit: 1 }] });
  await runOk(engine, "app", { insert: "other", documents: [{ _id: 1 }] });
  await runOk(engine, "app", { drop: "todos" });
  const batch = await next(engine, stream);
  t.deepEqual(types(batch), ["insert", "update", "update", "replace", "delete", "drop", "invalidate"]);
  const [insert, update, unset, replace, del, drop, invalidate] = batch as [Document, Document, Document, Document, Document, Document, Document];
  t.deepEqual(Object.keys(insert), ["_id", "operationType", "clusterTime", "wallTime", "fullDocument", "ns", "documentKey"]);
  t.true(insert["clusterTime"] instanceof Timestamp);
  t.true((insert["clusterTime"] as Timestamp).equals(inserted["operationTime"]), "clusterTime is the write's operationTime");
  t.true(insert["wallTime"] instanceof Date);
  t.deepEqual(insert["fullDocument"], { _id: 1, title: "a", tags: ["x", "y", "z"], sub: { k: 1 } });
  t.deepEqual(insert["ns"], { db: "app", coll: "todos" });
  t.deepEqual(insert["documentKey"], { _id: 1 });
  t.deepEqual(Object.keys(update), ["_id", "operationType", "clusterTime", "wallTime", "ns", "documentKey", "updateDescription"]);
  t.deepEqual(update["updateDescription"], {
    updatedFields: { title: "b", "sub.k": 2 },
    removedFields: [],
    truncatedArrays: [{ field: "tags", newSize: 2 }],
  });
  t.deepEqual(unset["updateDescription"], { updatedFields: {}, removedFields: ["title"], truncatedArrays: [] });
  t.deepEqual(replace["fullDocument"], { _id: 1, title: "replaced" });
  t.deepEqual(replace["documentKey"], { _id: 1 });
  t.deepEqual(Object.keys(del), ["_id", "operationType", "clusterTime", "wallTime", "ns", "documentKey"]);
  t.deepEqual(drop["ns"], { db: "app", coll: "todos" });
  t.false("documentKey" in drop);
  t.deepEqual(Object.keys(invalidate), ["_id", "operationType", "clusterTime", "wallTime"]);
  t.deepEqual(invalidate["clusterTime"], drop["clusterTime"]);
  t.true(stream.id.isZero(), "the cursor closes with the invalidate");
  t.deepEqual(stream.token, invalidate["_id"], "the last postBatchResumeToken is the invalidate's token");
  const ids = batch.map((event) => (event["_id"] as { _data: string })._data);
  t.deepEqual([...ids].sort(), ids, "resume tokens sort in stream order");
  t.is(new Set(ids).size, ids.length);
});

test("renames: the event names both namespaces, invalidates source and target streams, and a replaced target shows no drop", async (t) => {
  const engine = engineFor(t);
  await runOk(engine, "app", { insert: "a", documents: [{ _id: 1 }] });
  await runOk(engine, "app", { insert: "b", documents: [{ _id: 2 }] });
  const source = await watch(engine, "app", "a");
  const target = await watch(engine, "app", "b");
  const database = await watch(engine, "app", 1);
  const expanded = await watch(engine, "app", 1, { showExpandedEvents: true });
  const targetUuid = engine.storage.collection("app", "b")!.uuid;
  await runOk(engine, "admin", { renameCollection: "app.a", to: "app.b", dropTarget: true });
  for (const stream of [source, target]) {
    await next(engine, stream);
    t.deepEqual(types(stream.events), ["rename", "invalidate"]);
    t.deepEqual(stream.events[0]!["ns"], { db: "app", coll: "a" });
    t.deepEqual(stream.events[0]!["to"], { db: "app", coll: "b" });
    t.true(stream.id.isZero());
  }
  await next(engine, database);
  t.deepEqual(types(database.events), ["rename"], "the dropped target is part of the rename, not a drop event");
  t.false(database.id.isZero(), "a database stream survives renames");
  await next(engine, expanded);
  t.deepEqual(types(expanded.events), ["rename"]);
  t.deepEqual(expanded.events[0]!["operationDescription"], { to: { db: "app", coll: "b" }, dropTarget: deserialize(serialize({ u: targetUuid }))["u"] });
});

test("database and cluster streams: every collection, dropDatabase (invalidating only the database stream), internal databases skipped", async (t) => {
  const engine = engineFor(t);
  const database = await watch(engine, "shop", 1);
  const cluster = await watch(engine, "admin", 1, { allChangesForCluster: true });
  t.is(database.collection, "$cmd.aggregate");
  t.is(cluster.collection, "$cmd.aggregate");
  await runOk(engine, "shop", { insert: "orders", documents: [{ _id: 1 }] });
  await runOk(engine, "shop", { insert: "items", documents: [{ _id: 2 }] });
  await runOk(engine, "other", { insert: "things", documents: [{ _id: 3 }] });
  await runOk(engine, "config", { insert: "settings", documents: [{ _id: 4 }] });
  await runOk(engine, "local", { insert: "startup", documents: [{ _id: 5 }] });
  await runOk(engine, "shop", { dropDatabase: 1 });
  await runOk(engine, "other", { insert: "things", documents: [{ _id: 6 }] });
  await next(engine, database);
  t.deepEqual(types(database.events), ["insert", "insert", "drop", "drop", "dropDatabase", "invalidate"]);
  t.deepEqual(database.events.slice(2, 4).map((event) => event["ns"]["coll"]).sort(), ["items", "orders"]);
  t.deepEqual(database.events[4]!["ns"], { db: "shop" });
  t.true(database.id.isZero());
  await next(engine, cluster);
  t.deepEqual(
    cluster.events.map((event) => `${event["operationType"]} ${event["ns"]["db"]}.${event["ns"]["coll"] ?? ""}`),
    ["insert shop.orders", "insert shop.items", "insert other.things", "drop shop.orders", "drop shop.items", "dropDatabase shop.", "insert other.things"],
  );
  t.false(cluster.id.isZero(), "a cluster stream is never invalidated");
});

test("$out: the temporary collection is invisible; the final rename onto the target shows", async (t) => {
  const engine = engineFor(t);
  await runOk(engine, "app", { insert: "source", documents: [{ _id: 1 }, { _id: 2 }] });
  await runOk(engine, "app", { insert: "report", documents: [{ _id: 9 }] });
  const database = await watch(engine, "app", 1);
  const report = await watch(engine, "app", "report");
  await runOk(engine, "app", { aggregate: "source", pipeline: [{ $out: "report" }], cursor: {} });
  await next(engine, database);
  t.deepEqual(types(database.events), ["rename"]);
  t.regex(database.events[0]!["ns"]["coll"], /^tmp\.agg_out\./);
  t.deepEqual(database.events[0]!["to"], { db: "app", coll: "report" });
  await next(engine, report);
  t.deepEqual(types(report.events), ["rename", "invalidate"], "replacing the watched collection invalidates its stream");
});

test("fullDocument modes and fullDocumentBeforeChange", async (t) => {
  const engine = engineFor(t);
  await runOk(engine, "app", { create: "c", changeStreamPreAndPostImages: { enabled: true } });
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 1, n: 1 }] });
  const streams = {
    default: await watch(engine, "app", "c"),
    updateLookup: await watch(engine, "app", "c", { fullDocument: "updateLookup" }),
    whenAvailable: await watch(engine, "app", "c", { fullDocument: "whenAvailable", fullDocumentBeforeChange: "whenAvailable" }),
    required: await watch(engine, "app", "c", { fullDocument: "required", fullDocumentBeforeChange: "required" }),
  };
  await runOk(engine, "app", { update: "c", updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } } }] });
  await runOk(engine, "app", { update: "c", updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } } }] });
  await runOk(engine, "app", { update: "c", updates: [{ q: { _id: 1 }, u: { n: 10 } }] });
  await runOk(engine, "app", { delete: "c", deletes: [{ q: {}, limit: 0 }] });
  for (const stream of Object.values(streams)) await next(engine, stream);
  t.false("fullDocument" in streams.default.events[0]!, "default: update events carry no fullDocument");
  t.false("fullDocumentBeforeChange" in streams.default.events[0]!);
  t.deepEqual(streams.updateLookup.events.slice(0, 2).map((event) => event["fullDocument"]), [null, null], "updateLookup reads the current document: deleted since");
  t.deepEqual(streams.whenAvailable.events.map((event) => event["fullDocument"]), [{ _id: 1, n: 2 }, { _id: 1, n: 3 }, { _id: 1, n: 10 }, undefined]);
  t.deepEqual(streams.required.events.map((event) => event["fullDocument"]), [{ _id: 1, n: 2 }, { _id: 1, n: 3 }, { _id: 1, n: 10 }, undefined]);
  t.deepEqual(streams.required.events.map((event) => event["fullDocumentBeforeChange"]), [{ _id: 1, n: 1 }, { _id: 1, n: 2 }, { _id: 1, n: 3 }, { _id: 1, n: 10 }]);
  const live = await watch(engine, "app", "c", { fullDocument: "updateLookup" });
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 2, n: 1 }] });
  await runOk(engine, "app", { update: "c", updates: [{ q: { _id: 2 }, u: { $set: { n: 5 } } }] });
  await next(engine, live);
  t.deepEqual(live.events[1]!["fullDocument"], { _id: 2, n: 5 });
});

test("a required image that is missing fails the stream only if the event survives the stream's $match", async (t) => {
  const engine = engineFor(t);
  await runOk(engine, "app", { insert: "plain", documents: [{ _id: 1, n: 1 }] });
  await runOk(engine, "app", { create: "imaged", changeStreamPreAndPostImages: { enabled: true } });
  await runOk(engine, "app", { insert: "imaged", documents: [{ _id: 1, n: 1 }] });
  // The sync feed's shape: a database stream requiring post-images, matching only image-enabled collections.
  const filtered = await watch(engine, "app", 1, { fullDocument: "required" }, [{ $match: { "ns.coll": { $in: ["imaged"] } } }]);
  const unfiltered = await watch(engine, "app", 1, { fullDocument: "required" });
  await runOk(engine, "app", { update: "plain", updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } } }] });
  await runOk(engine, "app", { update: "imaged", updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } } }] });
  await next(engine, filtered);
  t.deepEqual(filtered.events.map((event) => event["fullDocument"]), [{ _id: 1, n: 2 }], "the other collection's update is dropped, not raised");
  t.is(await failure(engine, "app", { getMore: unfiltered.id, collection: "$cmd.aggregate", maxTimeMS: 1 }), 47, "NoMatchingDocument");
});

test("showExpandedEvents: create, createIndexes, dropIndexes and modify events, collectionUUID, operationDescription, disambiguatedPaths", async (t) => {
  const engine = engineFor(t);
  const stream = await watch(engine, "app", 1, { showExpandedEvents: true });
  const plain = await watch(engine, "app", 1);
  await runOk(engine, "app", { create: "c" });
  await runOk(engine, "app", { createIndexes: "c", indexes: [{ key: { n: 1 }, name: "n_1" }] });
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 1, a: { 0: "field" }, list: [1, 2] }] });
  await runOk(engine, "app", { update: "c", updates: [{ q: { _id: 1 }, u: { $set: { "a.0": "changed", "list.1": 3 } } }] });
  await runOk(engine, "app", { collMod: "c", validator: { n: { $exists: true } }, validationLevel: "moderate" });
  await runOk(engine, "app", { dropIndexes: "c", index: "n_1" });
  await runOk(engine, "admin", { renameCollection: "app.c", to: "app.d" });
  await next(engine, stream);
  await next(engine, plain);
  t.deepEqual(types(stream.events), ["create", "createIndexes", "insert", "update", "modify", "dropIndexes", "rename"]);
  t.deepEqual(types(plain.events), ["insert", "update", "rename"], "without showExpandedEvents only the classic events");
  const uuid = (await runOk(engine, "app", { listCollections: 1 }))["cursor"]["firstBatch"][0]["info"]["uuid"];
  for (const event of stream.events) t.deepEqual(event["collectionUUID"], uuid, event["operationType"]);
  t.false("collectionUUID" in plain.events[0]!);
  const [create, createIndexes, , update, modify, dropIndexes, rename] = stream.events as Document[];
  t.deepEqual(create!["operationDescription"]["idIndex"], { v: 2, key: { _id: 1 }, name: "_id_" });
  t.deepEqual(createIndexes!["operationDescription"], { indexes: [{ v: 2, key: { n: 1 }, name: "n_1" }] });
  t.deepEqual(modify!["operationDescription"], { validator: { n: { $exists: true } }, validationLevel: "moderate" });
  t.deepEqual(dropIndexes!["operationDescription"], { indexes: [{ name: "n_1" }] });
  t.deepEqual(rename!["operationDescription"], { to: { db: "app", coll: "d" } });
  t.deepEqual(update!["updateDescription"]["disambiguatedPaths"], { "a.0": ["a", "0"] }, "only the numeric field name is ambiguous");
  t.false("disambiguatedPaths" in plain.events[1]!["updateDescription"]);
});

test("stages after $changeStream run on every event; refused stages, a modified _id and a filtered invalidate behave as on mongod", async (t) => {
  const engine = engineFor(t);
  const stream = await watch(engine, "app", "c", {}, [
    { $match: { operationType: { $in: ["insert", "update"] }, "fullDocument.skip": { $ne: true } } },
    { $addFields: { seen: true } },
    { $project: { operationType: 1, "fullDocument.n": 1, seen: 1 } },
    { $unset: "seen" },
  ]);
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 1, n: 1, secret: "x" }, { _id: 2, n: 2, skip: true }] });
  await runOk(engine, "app", { delete: "c", deletes: [{ q: { _id: 2 }, limit: 1 }] });
  await runOk(engine, "app", { drop: "c" });
  await next(engine, stream);
  t.deepEqual(
    stream.events.map(({ _id, ...rest }) => rest),
    [{ operationType: "insert", fullDocument: { n: 1 } }],
  );
  t.true(stream.id.isZero(), "the invalidate ends the stream even though $match filtered it out");
  for (const stage of [{ $group: { _id: null } }, { $sort: { _id: 1 } }, { $limit: 1 }, { $lookup: { from: "x", as: "y", pipeline: [] } }, { $out: "x" }]) {
    t.is(await failure(engine, "app", { aggregate: "c", pipeline: [{ $changeStream: {} }, stage], cursor: {} }), 20, Object.keys(stage)[0]);
  }
  t.is(await failure(engine, "app", { aggregate: "c", pipeline: [{ $match: {} }, { $changeStream: {} }], cursor: {} }), 40602);
  t.is(await failure(engine, "app", { aggregate: "c", pipeline: [{ $changeStream: {} }, { $changeStream: {} }], cursor: {} }), 40602);
  const rewriting = await watch(engine, "app", "d", {}, [{ $project: { _id: 0 } }]);
  await runOk(engine, "app", { insert: "d", documents: [{ _id: 1 }] });
  t.is(await failure(engine, "app", { getMore: rewriting.id, collection: "d", maxTimeMS: 1 }), 280);
  t.is(await failure(engine, "app", { getMore: rewriting.id, collection: "d", maxTimeMS: 1 }), 43, "a failed getMore kills its cursor");
});

test("invalid $changeStream options and namespaces fail with MongoDB's codes", async (t) => {
  const engine = engineFor(t);
  const token = encodeResumeToken({ kind: "event", ts: engine.storage.clock.current(), txnOpIndex: 0 });
  const cases: Array<[string, string | 1, unknown, number]> = [
    ["app", "c", 1, 50808],
    ["app", "c", "x", 50808],
    ["app", "c", { nope: true }, 40415],
    ["app", "c", { fullDocument: "always" }, 2],
    ["app", "c", { fullDocument: 1 }, 14],
    ["app", "c", { fullDocumentBeforeChange: "updateLookup" }, 2],
    ["app", "c", { showExpandedEvents: "yes" }, 14],
    ["app", "c", { allChangesForCluster: 1 }, 14],
    ["app", "c", { startAtOperationTime: new Date() }, 14],
    ["app", "c", { resumeAfter: "token" }, 14],
    ["app", "c", { resumeAfter: {} }, 40647],
    ["app", "c", { resumeAfter: { _data: 42 } }, 40647],
    ["app", "c", { resumeAfter: { _data: "826A1B2C3D000000012B022C0100296E5A1004" } }, 260],
    ["app", "c", { startAfter: { _data: "not hex at all" } }, 260],
    ["app", "c", { resumeAfter: token, startAfter: token }, 50865],
    ["app", "c", { resumeAfter: token, startAtOperationTime: new Timestamp({ t: 1, i: 1 }) }, 40674],
    ["app", "c", { resumeAfter: encodeResumeToken({ kind: "invalidate", ts: engine.storage.clock.current(), txnOpIndex: 0 }) }, 260],
    ["app", "c", { showRawUpdateDescription: true }, 238],
    ["app", 1, { allChangesForCluster: true }, 72],
    ["admin", "c", { allChangesForCluster: true }, 72],
    ["admin", 1, {}, 73],
    ["config", 1, {}, 73],
    ["local", "oplog.rs", {}, 73],
    ["app", "system.views", {}, 73],
    ["app", "", {}, 73],
  ];
  for (const [db, target, spec, code] of cases) {
    t.is(await failure(engine, db, { aggregate: target, pipeline: [{ $changeStream: spec }], cursor: {} }), code, JSON.stringify([db, target, spec]));
  }
  t.is(await failure(engine, "app", { aggregate: "c", pipeline: [{ $changeStream: {} }], cursor: {}, lsid: { id: 1 }, txnNumber: Long.ONE, autocommit: false, startTransaction: true }), 263);
  const opened = await watch(engine, "app", "c", { showMigrationEvents: false, fullDocument: null });
  t.false(opened.id.isZero(), "inert flags and null options are accepted");
});

test("postBatchResumeToken: every batch has one, an empty batch advances past unrelated writes, and resuming from it loses nothing", async (t) => {
  const engine = engineFor(t);
  const stream = await watch(engine, "app", "c", {}, [], { batchSize: 0 });
  const first = stream.token;
  t.deepEqual(await next(engine, stream), []);
  t.deepEqual(stream.token, first, "nothing written: the position does not move");
  await runOk(engine, "app", { insert: "unrelated", documents: [{ _id: 1 }] });
  t.deepEqual(await next(engine, stream), []);
  t.true(stream.token["_data"] > first["_data"], "unrelated writes move the high-water mark");
  const resumed = await watch(engine, "app", "c", { resumeAfter: stream.token });
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }] });
  t.deepEqual((await next(engine, stream, { batchSize: 2 })).map((event) => event["documentKey"]["_id"]), [1, 2]);
  const delivered = stream.events[1]!["_id"]["_data"] as string;
  t.true(stream.token["_data"] >= delivered, "the token covers every delivered event...");
  const fromMiddle = await watch(engine, "app", "c", { resumeAfter: stream.token });
  await next(engine, fromMiddle);
  t.deepEqual(fromMiddle.events.map((event) => event["documentKey"]["_id"]), [3], "...and no undelivered one");
  await next(engine, resumed);
  t.deepEqual(resumed.events.map((event) => event["documentKey"]["_id"]), [1, 2, 3], "a high-water-mark token resumes before the next event");
});

test("resumeAfter, startAfter and startAtOperationTime start exactly where they say", async (t) => {
  const engine = engineFor(t);
  const stream = await watch(engine, "app", "c");
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 1 }] });
  const second = await runOk(engine, "app", { insert: "c", documents: [{ _id: 2 }] });
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 3 }] });
  await runOk(engine, "app", { drop: "c" });
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 4 }] });
  await next(engine, stream);
  const [one, , , drop, invalidate] = stream.events as Document[];
  const ids = async (spec: Document): Promise<unknown[]> => {
    const resumed = await watch(engine, "app", "c", spec);
    await next(engine, resumed);
    return resumed.events.map((event) => event["documentKey"]?.["_id"] ?? event["operationType"]);
  };
  t.deepEqual(await ids({ resumeAfter: one!["_id"] }), [2, 3, "drop", "invalidate"]);
  t.deepEqual(await ids({ startAfter: one!["_id"] }), [2, 3, "drop", "invalidate"]);
  t.deepEqual(await ids({ startAtOperationTime: second["operationTime"] }), [2, 3, "drop", "invalidate"], "startAtOperationTime is inclusive");
  t.deepEqual(await ids({ resumeAfter: drop!["_id"] }), ["invalidate"], "resuming after the drop still owes its invalidate");
  t.deepEqual(await ids({ startAfter: invalidate!["_id"] }), [4], "startAfter an invalidate opens a new stream on the namespace");
  t.is(await failure(engine, "app", { aggregate: "c", pipeline: [{ $changeStream: { resumeAfter: invalidate!["_id"] } }], cursor: {} }), 260);
  const future = encodeResumeToken({ kind: "event", ts: new Timestamp({ t: 0xfffffff0, i: 1 }), txnOpIndex: 0 });
  t.is(await failure(engine, "app", { aggregate: "c", pipeline: [{ $changeStream: { resumeAfter: future } }], cursor: {} }), 280, "a token for no event in the history");
  const resumedDb = await watch(engine, "app", 1, { resumeAfter: one!["_id"] });
  await next(engine, resumedDb);
  t.deepEqual(types(resumedDb.events), ["insert", "insert", "drop", "insert"], "a database stream is not invalidated by the drop");
});

test("bounded history: resuming from before it fails with 286, and so does a stream that falls behind", async (t) => {
  const engine = engineFor(t, { oplogCapacity: 5 });
  const stream = await watch(engine, "app", "c");
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 0 }] });
  await next(engine, stream);
  const early = stream.events[0]!["_id"] as Document;
  const earlyTime = stream.events[0]!["clusterTime"] as Timestamp;
  const lagging = await watch(engine, "app", "c");
  for (let i = 1; i <= 3; i++) await runOk(engine, "app", { insert: "c", documents: [{ _id: i }] });
  t.deepEqual((await watch(engine, "app", "c", { resumeAfter: early })).id.isZero(), false, "still within the history");
  for (let i = 4; i <= 10; i++) await runOk(engine, "app", { insert: "c", documents: [{ _id: i }] });
  for (const spec of [{ resumeAfter: early }, { startAfter: early }, { startAtOperationTime: earlyTime }, { resumeAfter: stream.token }]) {
    t.is(await failure(engine, "app", { aggregate: "c", pipeline: [{ $changeStream: spec }], cursor: {} }), 286, Object.keys(spec)[0]);
  }
  t.is(await failure(engine, "app", { getMore: lagging.id, collection: "c", maxTimeMS: 1 }), 286, "the stream fell behind the history");
  const recent = await watch(engine, "app", "c", { startAtOperationTime: engine.storage.oplog.oldest()!.ts });
  await next(engine, recent);
  t.deepEqual(recent.events.map((event) => event["documentKey"]["_id"]), [6, 7, 8, 9, 10]);
});

test("awaitData: a getMore waits for a matching write, ignores unrelated ones, and ends empty at maxTimeMS", async (t) => {
  const engine = engineFor(t);
  const stream = await watch(engine, "app", "c");
  const waiting = runOk(engine, "app", { getMore: stream.id, collection: "c", maxTimeMS: 60_000 });
  await runOk(engine, "app", { insert: "unrelated", documents: [{ _id: 1 }] });
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 1 }] });
  const reply = await waiting;
  t.deepEqual(reply["cursor"]["nextBatch"].map((event: Document) => event["ns"]["coll"]), ["c"]);
  const empty = await runOk(engine, "app", { getMore: stream.id, collection: "c", maxTimeMS: 5 });
  t.deepEqual(empty["cursor"]["nextBatch"], []);
  t.truthy(empty["cursor"]["postBatchResumeToken"]);
});

test("$currentOp lists change stream cursors (idle and awaiting) with their originating command; killCursors ends a waiting getMore with 43", async (t) => {
  const engine = engineFor(t);
  const idle = await watch(engine, "app", "flags", { fullDocument: "updateLookup" });
  const busy = await watch(engine, "app", 1);
  const waiting = engine.runCommand("app", { getMore: busy.id, collection: "$cmd.aggregate", maxTimeMS: 60_000 });
  const match = { "cursor.originatingCommand.pipeline.0.$changeStream": { $exists: true } };
  const withIdle = await runOk(engine, "admin", { aggregate: 1, pipeline: [{ $currentOp: { idleCursors: true, allUsers: true } }, { $match: match }], cursor: {} });
  const ops = withIdle["cursor"]["firstBatch"] as Document[];
  t.deepEqual(ops.map((op) => [op["type"], op["ns"]]).sort(), [["idleCursor", "app.flags"], ["op", "app.$cmd.aggregate"]]);
  const idleOp = ops.find((op) => op["type"] === "idleCursor")!;
  t.true(Long.fromValue(idleOp["cursor"]["cursorId"]).equals(idle.id));
  t.deepEqual(idleOp["cursor"]["originatingCommand"]["pipeline"], [{ $changeStream: { fullDocument: "updateLookup" } }]);
  t.like(idleOp["cursor"], { tailable: true, awaitData: true, noCursorTimeout: false });
  const busyOp = ops.find((op) => op["type"] === "op")!;
  t.like(busyOp, { active: true, op: "getmore" });
  t.true(Long.fromValue(busyOp["cursor"]["cursorId"]).equals(busy.id));
  const activeOnly = await runOk(engine, "admin", { aggregate: 1, pipeline: [{ $currentOp: {} }, { $match: match }], cursor: {} });
  t.deepEqual(activeOnly["cursor"]["firstBatch"].map((op: Document) => op["type"]), ["op"], "idle cursors only with idleCursors: true");
  const killed = await runOk(engine, "app", { killCursors: "$cmd.aggregate", cursors: [busyOp["cursor"]["cursorId"]] });
  t.is(killed["cursorsKilled"].length, 1);
  t.is((await waiting)["code"], 43, "the waiting getMore answers CursorNotFound, which drivers resume from");
  t.is(await failure(engine, "app", { aggregate: 1, pipeline: [{ $currentOp: {} }], cursor: {} }), 73);
  t.is(await failure(engine, "admin", { aggregate: 1, pipeline: [{ $currentOp: { bogus: true } }], cursor: {} }), 9);
  t.is(await failure(engine, "admin", { aggregate: 1, pipeline: [{ $currentOp: { idleCursors: 1 } }], cursor: {} }), 9);
});

test("events are handed out only once their writes are durable (the journal's barrier); a failing barrier kills the stream", async (t) => {
  const engine = engineFor(t);
  const stream = await watch(engine, "app", "c");
  let open!: () => void;
  let fail!: (error: Error) => void;
  let gate = new Promise<void>((resolve, reject) => ((open = resolve), (fail = reject)));
  engine.setDurabilityBarrier(() => gate);
  let answered = false;
  const waiting = engine.runCommand("app", { getMore: stream.id, collection: "c", maxTimeMS: 60_000 }).then((reply) => ((answered = true), reply));
  const write = engine.runCommand("app", { insert: "c", documents: [{ _id: 1 }] });
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  t.false(answered, "the event waits for the write to be durable");
  open();
  await write;
  t.is((await waiting)["cursor"]["nextBatch"].length, 1);
  gate = new Promise<void>((resolve, reject) => ((open = resolve), (fail = reject)));
  gate.catch(() => undefined);
  const failing = engine.runCommand("app", { getMore: stream.id, collection: "c", maxTimeMS: 60_000 });
  const failedWrite = engine.runCommand("app", { insert: "c", documents: [{ _id: 2 }] });
  fail(new Error("disk full"));
  await failedWrite;
  t.is((await failing)["code"], 1);
  t.is(await failure(engine, "app", { getMore: stream.id, collection: "c", maxTimeMS: 1 }), 43, "the stream's cursor is gone");
});

test("a batch boundary between a drop and its invalidate loses neither", async (t) => {
  const engine = engineFor(t);
  const stream = await watch(engine, "app", "c");
  await runOk(engine, "app", { insert: "c", documents: [{ _id: 1 }] });
  await runOk(engine, "app", { drop: "c" });
  t.deepEqual(types(await next(engine, stream, { batchSize: 2 })), ["insert", "drop"]);
  t.deepEqual(stream.token, stream.events[1]!["_id"], "the invalidate is still owed: the token is the drop's");
  const resumed = await watch(engine, "app", "c", { resumeAfter: stream.token });
  t.deepEqual(types(resumed.events), ["invalidate"]);
  t.deepEqual(types(await next(engine, stream)), ["invalidate"]);
  t.true(stream.id.isZero());
});
