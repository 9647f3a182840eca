import test from "ava";
import { MongoClient, Timestamp } from "mongodb";
import { startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";
import { operationTimeNow } from "./operation-time.js";

test.after.always(() => stopTestDatabase());

test("a change stream opened at operationTimeNow reports a write committed before its cursor existed", async (t) => {
  const database = await startTestDatabase();
  const client = await new MongoClient(database.uri).connect();
  t.teardown(() => client.close());
  const db = client.db(database.dbName);
  const notes = db.collection<{ _id: string; title: string }>("operation_time_notes");
  await notes.insertOne({ _id: "before", title: "before the operation time" });

  const startAt = await operationTimeNow(db);
  t.true(startAt instanceof Timestamp);
  // Written before the stream's aggregate runs: only the start time can bring it back.
  await notes.insertOne({ _id: "after", title: "after the operation time" });
  const stream = notes.watch([], { startAtOperationTime: startAt! });
  t.teardown(() => stream.close());
  const first = await stream.next();
  t.is(first.operationType, "insert");
  t.is(first.operationType === "insert" ? first.documentKey._id : undefined, "after");
});
