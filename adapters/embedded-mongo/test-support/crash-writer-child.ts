/**
 * Child process of `journal/crash-recovery.test.ts` (not a test itself): opens the engine on the data
 * directory given as argv[2] and writes through the real driver as fast as it can, printing
 * each write only once the server acknowledged it, until the parent kills it with SIGKILL.
 * Lines: `ready <uri>`, `insert <id>` (an acknowledged insertOne), `counter <n>` (the value an
 * acknowledged `$inc` returned). Bounded: it stops by itself after 60 s or 200 000 writes.
 *
 * @example
 * node --import tsx adapters/embedded-mongo/test-support/crash-writer-child.ts /tmp/data
 */
import { MongoClient } from "mongodb";
import { startEmbeddedMongo } from "../start-embedded-mongo.js";

const dbPath = process.argv[2];
if (!dbPath) throw new Error("usage: crash-writer-child.ts <dbPath>");

// Errors go to stderr: the parent shows them when the child stops writing too early.
const running = await startEmbeddedMongo({ dbPath, logger: { error: console.error, warn() {}, info() {}, debug() {} } });
const client = await new MongoClient(running.uri, { maxPoolSize: 8 }).connect();
const db = client.db("crash");
const payload = "p".repeat(1500);
const deadline = Date.now() + 60_000;
let writes = 0;
const more = (): boolean => Date.now() < deadline && writes < 200_000;

process.stdout.write(`ready ${running.uri}\n`);
await Promise.all([
  // Concurrent inserters: their batches share fsyncs (group commit) and can be torn together.
  ...[0, 1, 2].map(async (writer) => {
    for (let i = 0; more(); i++) {
      const _id = `${writer}-${i}`;
      await db.collection("docs").insertOne({ _id, writer, i, payload } as never);
      writes += 1;
      process.stdout.write(`insert ${_id}\n`);
    }
  }),
  (async () => {
    while (more()) {
      const after = await db.collection("counters").findOneAndUpdate({ _id: "c" as never }, { $inc: { n: 1 } }, { upsert: true, returnDocument: "after" });
      writes += 1;
      process.stdout.write(`counter ${String(after?.["n"])}\n`);
    }
  })(),
]);
await client.close();
await running.stop();
