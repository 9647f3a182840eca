import test from "ava";
import mongoose from "mongoose";
import { startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";
import { drawSeq, frontierOf, inSyncTransaction } from "./sequencing.js";
import { initSyncBookkeeping } from "./sync-bookkeeping.js";

test.after.always(() => stopTestDatabase());

test("concurrent transactions drawing from one stream get every seq exactly once, committed in order", async (t) => {
  const database = await startTestDatabase();
  const connection = mongoose.createConnection(database.uri);
  t.teardown(() => connection.close());
  const bookkeeping = await initSyncBookkeeping(connection);
  const stream = `stress|${process.pid}`;
  const drawn: number[] = [];
  await Promise.all(
    Array.from({ length: 40 }, () =>
      inSyncTransaction(connection, async (session) => {
        const seq = await drawSeq(bookkeeping, stream, session);
        // Something else in the same transaction, as a real write does.
        await bookkeeping.tombstones.updateOne({ stream: `${stream}-log`, entityId: String(seq) }, { $set: { seq, collectionName: "stress" } }, { upsert: true, session }).exec();
        return seq;
      }).then((seq) => drawn.push(seq)),
    ),
  );
  t.deepEqual([...drawn].sort((a, b) => a - b), Array.from({ length: 40 }, (_, index) => index + 1));
  t.deepEqual(await frontierOf(bookkeeping, stream), { seq: 40, tombstones: false });
});
