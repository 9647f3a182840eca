import test from "ava";
import { EJSON, Int32, Long } from "bson";
import type { Document } from "bson";
import { engineFor, runOk } from "./test-support/in-process-engine.js";

test("stored documents are never mutated by reads, updates, projections or pipelines", async (t) => {
  const engine = engineFor(t);
  await runOk(engine, "a", { insert: "c", documents: [{ _id: 1, n: new Int32(1), tags: ["x"], sub: { a: 1, list: [{ k: 1 }] } }] });
  const stored = engine.storage.collection("a", "c")!.findById(1)!.doc;
  const snapshot = EJSON.stringify(stored, { relaxed: false });
  await runOk(engine, "a", { find: "c", filter: { "sub.list.k": 1 }, projection: { "sub.a": 1, tags: { $slice: 1 } } });
  await runOk(engine, "a", {
    aggregate: "c",
    pipeline: [{ $set: { "sub.a": 2, "sub.list.k": 9 } }, { $unset: "tags" }, { $addFields: { n: { $add: ["$n", 1] } } }, { $project: { sub: 1 } }],
    cursor: {},
  });
  await runOk(engine, "a", { aggregate: "c", pipeline: [{ $unwind: "$tags" }, { $replaceRoot: { newRoot: "$sub" } }], cursor: {} });
  t.is(EJSON.stringify(stored, { relaxed: false }), snapshot, "reads left the stored object alone");
  await runOk(engine, "a", { update: "c", updates: [{ q: { _id: 1 }, u: { $push: { tags: "y", "sub.list": { k: 2 } }, $inc: { n: 1 }, $set: { "sub.a": 5 } } }] });
  t.is(EJSON.stringify(stored, { relaxed: false }), snapshot, "the update produced a new object");
  const updated = engine.storage.collection("a", "c")!.findById(1)!.doc;
  t.not(updated, stored);
  t.deepEqual(updated["tags"], ["x", "y"]);
});

test("listCollections, collMod, renameCollection and dropIndexes follow MongoDB", async (t) => {
  const engine = engineFor(t);
  await runOk(engine, "a", { create: "users", validator: { email: { $type: "string" } } });
  await runOk(engine, "a", { createIndexes: "users", indexes: [{ key: { email: 1 }, name: "email_1" }, { key: { at: 1 }, name: "at_1", expireAfterSeconds: 60 }] });
  const listed = await runOk(engine, "a", { listCollections: 1, filter: { name: "users" } });
  const info = listed.cursor.firstBatch[0];
  t.is(info.name, "users");
  t.is(info.type, "collection");
  t.deepEqual(info.options, { validator: { email: { $type: "string" } } });
  t.is(info.info.uuid.sub_type, 4);
  const names = await runOk(engine, "a", { listCollections: 1, nameOnly: true });
  t.deepEqual(names.cursor.firstBatch, [{ name: "users", type: "collection" }]);
  t.is(names.cursor.ns, "a.$cmd.listCollections");
  const invalid = await engine.runCommand("a", { insert: "users", documents: [{ email: 5 }] });
  t.is(invalid.writeErrors[0].code, 121);
  const modded = await runOk(engine, "a", { collMod: "users", index: { name: "at_1", expireAfterSeconds: 120 } });
  t.is(modded.expireAfterSeconds_old, 60);
  t.is(modded.expireAfterSeconds_new, 120);
  t.is((await engine.runCommand("a", { renameCollection: "a.users", to: "a.people" })).code, 13, "renameCollection runs on admin");
  await runOk(engine, "admin", { renameCollection: "a.users", to: "a.people" });
  t.is((await engine.runCommand("admin", { renameCollection: "a.users", to: "a.x" })).code, 26);
  await runOk(engine, "a", { create: "other" });
  t.is((await engine.runCommand("admin", { renameCollection: "a.people", to: "a.other" })).code, 48);
  await runOk(engine, "admin", { renameCollection: "a.people", to: "a.other", dropTarget: true });
  const indexes = await runOk(engine, "a", { listIndexes: "other" });
  t.deepEqual(indexes.cursor.firstBatch.map((index: Document) => index.name), ["_id_", "email_1", "at_1"]);
  t.is((await engine.runCommand("a", { dropIndexes: "other", index: "nope" })).code, 27);
  t.is((await engine.runCommand("a", { dropIndexes: "other", index: "_id_" })).code, 72);
  await runOk(engine, "a", { dropIndexes: "other", index: { email: 1 } });
  const afterDrop = await runOk(engine, "a", { dropIndexes: "other", index: "*" });
  t.is(afterDrop.nIndexesWas, 2);
  t.deepEqual((await runOk(engine, "a", { listIndexes: "other" })).cursor.firstBatch.map((index: Document) => index.name), ["_id_"]);
  t.is((await engine.runCommand("a", { create: "capped", capped: true, size: 1000 })).code, 72);
  t.is((await engine.runCommand("a", { find: "bad\0name" })).code, 73);
  t.is((await engine.runCommand("bad.db", { find: "c" })).code, 73);
  await runOk(engine, "a", { drop: "never-existed" });
  await runOk(engine, "a", { dropDatabase: 1 });
  t.deepEqual((await runOk(engine, "admin", { listDatabases: 1, nameOnly: true })).databases, []);
});

test("update: upserts report their id; positional, arrayFilters, pipeline updates; _id is immutable", async (t) => {
  const engine = engineFor(t);
  await runOk(engine, "a", { insert: "c", documents: [{ _id: 1, grades: [80, 90, 95], items: [{ q: 1 }, { q: 5 }] }] });
  const upsert = await runOk(engine, "a", { update: "c", updates: [{ q: { _id: 7, kind: "x" }, u: { $set: { n: 1 }, $setOnInsert: { created: true } }, upsert: true }] });
  t.deepEqual(upsert.upserted, [{ index: 0, _id: 7 }]);
  t.is(upsert.n, 1);
  t.is(upsert.nModified, 0);
  const seven = (await runOk(engine, "a", { find: "c", filter: { _id: 7 } })).cursor.firstBatch[0];
  t.deepEqual(seven, { _id: 7, kind: "x", n: 1, created: true });
  await runOk(engine, "a", { update: "c", updates: [{ q: { _id: 1, grades: 90 }, u: { $set: { "grades.$": 91 } } }] });
  await runOk(engine, "a", { update: "c", updates: [{ q: { _id: 1 }, u: { $inc: { "items.$[big].q": 10 } }, arrayFilters: [{ "big.q": { $gt: 2 } }] }] });
  await runOk(engine, "a", { update: "c", updates: [{ q: { _id: 1 }, u: [{ $set: { total: { $sum: "$grades" } } }] }] });
  const one = (await runOk(engine, "a", { find: "c", filter: { _id: 1 } })).cursor.firstBatch[0];
  t.deepEqual(one.grades, [80, 91, 95]);
  t.deepEqual(one.items, [{ q: 1 }, { q: 15 }]);
  t.is(one.total, 266);
  const unchanged = await runOk(engine, "a", { update: "c", updates: [{ q: { _id: 1 }, u: { $set: { total: 266 } } }] });
  t.is(unchanged.nModified, 0);
  const immutable = await engine.runCommand("a", { update: "c", updates: [{ q: { _id: 1 }, u: { $set: { _id: 2 } } }] });
  t.is(immutable.writeErrors[0].code, 66);
  const multiReplace = await engine.runCommand("a", { update: "c", updates: [{ q: {}, u: { x: 1 }, multi: true }] });
  t.is(multiReplace.writeErrors[0].code, 9);
});

test("findAndModify returns before/after images and lastErrorObject", async (t) => {
  const engine = engineFor(t);
  await runOk(engine, "a", { insert: "c", documents: [{ _id: 1, n: 1 }, { _id: 2, n: 2 }] });
  const before = await runOk(engine, "a", { findAndModify: "c", query: {}, sort: { n: -1 }, update: { $inc: { n: 10 } } });
  t.deepEqual(before.value, { _id: 2, n: 2 });
  t.deepEqual(before.lastErrorObject, { n: 1, updatedExisting: true });
  const after = await runOk(engine, "a", { findAndModify: "c", query: { _id: 1 }, update: { $inc: { n: 1 } }, new: true, fields: { n: 1, _id: 0 } });
  t.deepEqual(after.value, { n: 2 });
  const upserted = await runOk(engine, "a", { findAndModify: "c", query: { _id: 3 }, update: { $set: { n: 3 } }, upsert: true, new: true });
  t.deepEqual(upserted.lastErrorObject, { n: 1, updatedExisting: false, upserted: 3 });
  t.deepEqual(upserted.value, { _id: 3, n: 3 });
  const removed = await runOk(engine, "a", { findAndModify: "c", query: { _id: 3 }, remove: true });
  t.deepEqual(removed.value, { _id: 3, n: 3 });
  t.deepEqual(removed.lastErrorObject, { n: 1 });
  const none = await runOk(engine, "a", { findAndModify: "c", query: { _id: 99 }, update: { $set: { n: 0 } } });
  t.is(none.value, null);
  t.is((await engine.runCommand("a", { findAndModify: "c", query: {} })).code, 9);
});

test("hello, buildInfo, getParameter, whatsmyuri, serverStatus and unknown commands", async (t) => {
  const engine = engineFor(t);
  const hello = await runOk(engine, "admin", { hello: 1 });
  t.true(hello.isWritablePrimary);
  t.is(hello.maxBsonObjectSize, 16 * 1024 * 1024);
  t.is(hello.maxMessageSizeBytes, 48_000_000);
  t.is(hello.maxWriteBatchSize, 100_000);
  t.is(Number(hello.topologyVersion.counter), 0);
  t.truthy(hello.$clusterTime.clusterTime);
  t.truthy(hello.operationTime);
  t.true((await runOk(engine, "admin", { isMaster: 1 })).ismaster);
  t.regex((await runOk(engine, "admin", { buildInfo: 1 })).version, /^7\.0\./);
  t.deepEqual((await runOk(engine, "admin", { getParameter: 1, featureCompatibilityVersion: 1 })).featureCompatibilityVersion, { version: "7.0" });
  t.is((await runOk(engine, "admin", { whatsmyuri: 1 })).you, "in-process");
  t.is((await runOk(engine, "admin", { serverStatus: 1 })).process, "svc-db");
  const unknown = await engine.runCommand("admin", { notACommand: 1 });
  t.is(unknown.code, 59);
  t.is(unknown.codeName, "CommandNotFound");
  t.is(unknown.errmsg, "no such command: 'notACommand'");
  t.is((await engine.runCommand("a", { listDatabases: 1 })).code, 13);
});

test("the write path: every committed command write reaches the oplog with the session", async (t) => {
  const engine = engineFor(t);
  const seen: string[] = [];
  engine.storage.oplog.subscribe((entries) => seen.push(...entries.map((entry) => `${entry.op}:${entry.ns}`)));
  const lsid = { id: "session-1" };
  await runOk(engine, "a", { insert: "c", documents: [{ _id: 1 }], lsid, txnNumber: Long.fromNumber(1) });
  await runOk(engine, "a", { update: "c", updates: [{ q: { _id: 1 }, u: { $set: { x: 1 } } }] });
  await runOk(engine, "a", { delete: "c", deletes: [{ q: { _id: 1 }, limit: 1 }] });
  await runOk(engine, "a", { drop: "c" });
  t.deepEqual(seen, ["c:a.$cmd", "i:a.c", "u:a.c", "d:a.c", "c:a.$cmd"]);
  const insert = engine.storage.oplog.after(engine.storage.oplog.oldest()!.ts)[0]!;
  t.deepEqual(insert.lsid, lsid);
  t.true(insert.txnNumber?.equals(Long.fromNumber(1)));
});

test("the durability barrier is awaited before replying to writes only", async (t) => {
  const engine = engineFor(t);
  let flushes = 0;
  engine.setDurabilityBarrier(async () => {
    flushes += 1;
  });
  await runOk(engine, "a", { insert: "c", documents: [{ _id: 1 }] });
  await runOk(engine, "a", { find: "c" });
  await runOk(engine, "a", { update: "c", updates: [{ q: { _id: 2 }, u: { $set: { x: 1 } } }] });
  t.is(flushes, 1);
});

test("a document over 16 MB is a BadValue (2) write error of its own; the others of an unordered insert land", async (t) => {
  const engine = engineFor(t);
  const big = "x".repeat(16 * 1024 * 1024);
  const reply = await runOk(engine, "a", { insert: "big", documents: [{ _id: 1 }, { _id: 2, s: big }, { _id: 3 }], ordered: false });
  t.is(reply["n"], 2);
  const [error] = reply["writeErrors"] as Document[];
  t.is(error!["index"], 1);
  t.is(error!["code"], 2);
  t.regex(String(error!["errmsg"]), /^object to insert too large\. size in bytes: \d+, max size: 16777216$/);
});
