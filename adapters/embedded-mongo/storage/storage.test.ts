import test from "ava";
import { Int32, ObjectId } from "bson";
import type { Document } from "bson";
import { EngineError } from "../engine-error.js";
import { parseIndexSpec } from "./index-spec.js";
import { Storage } from "./storage.js";
import type { OplogEntry } from "./write-ops.js";
import { silentLogger } from "../test-support/silent-logger.js";

const newStorage = (): Storage => new Storage({ oplogCapacity: 1000, logger: silentLogger });

test("an insert into a missing collection creates it first and both become oplog entries", (t) => {
  const storage = newStorage();
  const seen: OplogEntry[][] = [];
  storage.oplog.subscribe((entries) => seen.push([...entries]));
  const doc = { _id: new ObjectId(), n: new Int32(1) };
  const entries = storage.commit({ ops: [{ op: "insert", db: "app", collection: "c", doc }], lsid: { id: "s" } });
  t.deepEqual(entries.map((entry) => [entry.op, entry.ns]), [["c", "app.$cmd"], ["i", "app.c"]]);
  t.is(entries[1]!.o, doc);
  t.deepEqual(entries[1]!.o2, { _id: doc._id });
  t.deepEqual(entries[1]!.lsid, { id: "s" });
  t.true(entries[0]!.ts.lessThan(entries[1]!.ts));
  t.deepEqual(entries[0]!.ui, entries[1]!.ui);
  t.is(seen.length, 1);
  t.is(storage.collection("app", "c")?.findById(doc._id)?.doc, doc);
});

test("a batch is atomic: a failing op undoes the ops before it and emits nothing", (t) => {
  const storage = newStorage();
  storage.commit({ ops: [{ op: "createIndexes", db: "app", collection: "c", specs: [parseIndexSpec({ key: { k: 1 }, name: "k_1", unique: true })] }] });
  storage.commit({ ops: [{ op: "insert", db: "app", collection: "c", doc: { _id: 1, k: "taken" } }] });
  const before = storage.oplog.size;
  const error = t.throws(
    () =>
      storage.commit({
        ops: [
          { op: "insert", db: "app", collection: "c", doc: { _id: 2, k: "free" } },
          { op: "createCollection", db: "app", collection: "other", options: {} },
          { op: "insert", db: "app", collection: "c", doc: { _id: 3, k: "taken" } },
        ],
      }),
    { instanceOf: EngineError },
  );
  t.is(error.code, 11000);
  t.is(storage.oplog.size, before);
  t.is(storage.collection("app", "c")?.count, 1);
  t.is(storage.collection("app", "other"), undefined);
  // The unique index was rolled back too: "free" is still free.
  t.notThrows(() => storage.commit({ ops: [{ op: "insert", db: "app", collection: "c", doc: { _id: 4, k: "free" } }] }));
});

test("updates carry pre/post images and their description; a stale before-image is a WriteConflict", (t) => {
  const storage = newStorage();
  const v1: Document = { _id: 1, n: 1 };
  storage.commit({ ops: [{ op: "insert", db: "app", collection: "c", doc: v1 }] });
  const v2: Document = { _id: 1, n: 2 };
  const [entry] = storage.commit({
    ops: [{ op: "update", db: "app", collection: "c", before: v1, after: v2, updateDescription: { updatedFields: { n: 2 }, removedFields: [] } }],
  });
  t.is(entry!.op, "u");
  t.is(entry!.preImage, v1);
  t.is(entry!.postImage, v2);
  t.deepEqual(entry!.updateDescription, { updatedFields: { n: 2 }, removedFields: [] });
  const stale = t.throws(() => storage.commit({ ops: [{ op: "update", db: "app", collection: "c", before: v1, after: { _id: 1, n: 3 } }] }), {
    instanceOf: EngineError,
  });
  t.is(stale.code, 112);
  t.deepEqual(stale.extra["errorLabels"], ["TransientTransactionError"]);
  const [deleted] = storage.commit({ ops: [{ op: "delete", db: "app", collection: "c", before: v2 }] });
  t.is(deleted!.op, "d");
  t.deepEqual(deleted!.o, { _id: 1 });
  t.is(deleted!.preImage, v2);
});

test("renames move a collection (uuid kept); dropping the last collection drops the database", (t) => {
  const storage = newStorage();
  storage.commit({ ops: [{ op: "insert", db: "a", collection: "x", doc: { _id: 1 } }] });
  const uuid = storage.collection("a", "x")!.uuid;
  storage.commit({ ops: [{ op: "renameCollection", db: "a", collection: "x", toDb: "a", toCollection: "y", dropTarget: false }] });
  t.is(storage.collection("a", "x"), undefined);
  t.is(storage.collection("a", "y")!.uuid, uuid);
  t.is(storage.collection("a", "y")!.count, 1);
  storage.commit({ ops: [{ op: "dropCollection", db: "a", collection: "y" }] });
  t.deepEqual(storage.databaseNames(), []);
});

test("collection validators reject invalid documents with 121 and honour validationLevel", (t) => {
  const storage = newStorage();
  storage.commit({ ops: [{ op: "createCollection", db: "a", collection: "v", options: { validator: { age: { $gte: 0 } } } }] });
  const error = t.throws(() => storage.commit({ ops: [{ op: "insert", db: "a", collection: "v", doc: { _id: 1, age: -1 } }] }), { instanceOf: EngineError });
  t.is(error.code, 121);
  t.notThrows(() =>
    storage.commit({ ops: [{ op: "insert", db: "a", collection: "v", doc: { _id: 2, age: -1 }, bypassDocumentValidation: true }] }),
  );
  storage.commit({ ops: [{ op: "collMod", db: "a", collection: "v", validationLevel: "moderate" }] });
  const invalid = storage.collection("a", "v")!.findById(2)!.doc;
  t.notThrows(() => storage.commit({ ops: [{ op: "update", db: "a", collection: "v", before: invalid, after: { _id: 2, age: -2 } }] }));
});

test("the oplog keeps a bounded history and finds entries after a timestamp", (t) => {
  const storage = new Storage({ oplogCapacity: 10, logger: silentLogger });
  const all: OplogEntry[] = [];
  for (let i = 0; i < 50; i++) all.push(...storage.commit({ ops: [{ op: "insert", db: "a", collection: "c", doc: { _id: i } }] }));
  t.is(storage.oplog.size, 10);
  t.is(storage.oplog.oldest(), all[all.length - 10]);
  t.deepEqual(storage.oplog.after(all[all.length - 3]!.ts), all.slice(-2));
});
