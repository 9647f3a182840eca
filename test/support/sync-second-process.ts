// A second app process for cross-process tests (test/sync-two-processes.test.ts): the sync test
// app, listening, on the database the parent names in SVC_SECOND_DB_URI / SVC_SECOND_DB_NAME. It
// prints `READY {"url": …, "socketUrl": …}` once it serves, and stops cleanly on SIGTERM.
import { stopTestDatabase } from "../../hosts/testing.js";
import { syncTestApp } from "./sync-test-app.js";

const uri = process.env.SVC_SECOND_DB_URI;
const dbName = process.env.SVC_SECOND_DB_NAME;
if (!uri || !dbName) throw new Error("SVC_SECOND_DB_URI and SVC_SECOND_DB_NAME name the parent's database");

const stops: Array<() => Promise<void> | void> = [];
const { url, socketUrl, logs } = await syncTestApp({ teardown: (fn) => void stops.push(fn) }, { realtime: {}, database: { uri, dbName } });
process.stdout.write(`READY ${JSON.stringify({ url, socketUrl })}\n`);

// The app logs into memory; its errors go to stderr, where the parent test looks for them.
let reported = 0;
const reportErrors = setInterval(() => {
  for (const line of logs.lines.slice(reported)) if (line.level === "error") process.stderr.write(`${JSON.stringify(line)}\n`);
  reported = logs.lines.length;
}, 50);

process.once("SIGTERM", () => {
  void (async () => {
    clearInterval(reportErrors);
    for (const stop of stops) await stop();
    await stopTestDatabase();
    process.exit(0);
  })();
});
