// The write check the harness relies on: a snapshot must change with any write (a new document,
// a changed value, a changed type) and stay the same when nothing was written.
import test from "ava";
import mongoose from "mongoose";
import { startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";
import { changedCollections, snapshotDatabase } from "./database-snapshot.js";

test.after.always(() => stopTestDatabase());

async function openConnection(t: { teardown(fn: () => Promise<void>): void }) {
  const database = await startTestDatabase();
  const connection = await mongoose.createConnection(database.uri, { dbName: `${database.dbName}_snapshot` }).asPromise();
  t.teardown(async () => {
    await connection.dropDatabase();
    await connection.close();
  });
  return connection;
}

test("a snapshot changes with every kind of write and only with writes", async (t) => {
  const connection = await openConnection(t);
  const notes = connection.db!.collection("notes");
  await notes.insertMany([{ text: "a", count: 1 }, { text: "b", count: 2 }]);
  await connection.db!.createCollection("empty");

  const first = await snapshotDatabase(connection);
  t.deepEqual(changedCollections(first, await snapshotDatabase(connection)), [], "reading twice changes nothing");

  await notes.updateOne({ text: "a" }, { $set: { count: new mongoose.mongo.Double(1) } });
  const retyped = await snapshotDatabase(connection);
  t.is(changedCollections(first, retyped).length, 1, "an Int32 become a Double is a write");
  t.regex(changedCollections(first, retyped)[0]!, /^notes \(2:/);

  await notes.insertOne({ text: "c" });
  t.regex(changedCollections(retyped, await snapshotDatabase(connection))[0]!, /^notes \(2:\w+ → 3:\w+\)$/);

  await connection.db!.collection("audit").insertOne({ event: "refused" });
  const audited = await snapshotDatabase(connection);
  t.true(changedCollections(first, audited).some((change) => change.startsWith("audit (absent → 1:")), "a new collection with a document is a write");
  t.false(changedCollections(first, audited, new Set(["audit", "notes"])).length > 0, "ignored collections are left out");

  await connection.db!.createCollection("created-empty");
  t.deepEqual(changedCollections(audited, await snapshotDatabase(connection)), [], "a new empty collection holds no write");
});
