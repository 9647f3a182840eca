// The second process of test/sync-two-processes.test.ts: the sync test app, listening, on the
// parent's database (test/support/second-process.ts starts it and relays its error lines).
import { serveSecondProcess } from "./second-process.js";
import { syncTestApp } from "./sync-test-app.js";

await serveSecondProcess(async ({ database, teardown }) => {
  const { url, socketUrl, logs } = await syncTestApp({ teardown }, { realtime: {}, database });
  return { url: url!, socketUrl, logs };
});
