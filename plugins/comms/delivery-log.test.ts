import test from "ava";
import { startTestDatabase, stopTestDatabase, withFailPoint } from "../../hosts/testing.js";
import { commsTestApp } from "../../test/support/comms-test-app.js";
import { commsMessageModel } from "./index.js";

test.after.always(() => stopTestDatabase());

test.serial("under a steady stream of sends against a slow database, a send waits for the write in progress, not for the stream to stop", async (t) => {
  const { comms } = await commsTestApp(t);
  const database = await startTestDatabase();
  const service = comms.getCommsService();
  const namespace = `${database.dbName}.${commsMessageModel().collection.collectionName}`;
  const subject = `stream-${process.pid}-${Date.now()}`;
  const LOAD_MS = 3000;
  let slowest = 0;
  const sends: Promise<unknown>[] = [];
  // Every insert of the log takes 150 ms, so rows queue past the backpressure limit (500).
  await withFailPoint(database.uri, { mode: "alwaysOn", data: { failCommands: ["insert"], blockConnection: true, blockTimeMS: 150, namespace } }, async () => {
    const started = Date.now();
    // Open-loop load, as requests reach a server: new sends arrive whatever the earlier ones' latency.
    while (Date.now() - started < LOAD_MS) {
      for (let i = 0; i < 40; i++) {
        const at = Date.now();
        sends.push(service.sendMail({ to: "ada@example.com", subject, text: "x" }).then(() => void (slowest = Math.max(slowest, Date.now() - at))));
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(sends);
  });
  // Before: the first send over the limit waited for an empty queue, which came only with the end
  // of the stream (its latency was the whole LOAD_MS). Now: at most the write in progress.
  t.true(slowest < LOAD_MS / 2, `the slowest send took ${slowest} ms`);
  await service.flushLog();
  t.is(await commsMessageModel().countDocuments({ "payload.subject": subject }), sends.length, "every row was written");
});
