// The second process of test/sync-two-processes.test.ts and plugins/redis/redis-sockets.test.ts:
// the sync test app, listening, on the parent's database (test/support/second-process.ts starts
// it and relays its error lines), on the parent's Redis when it passes CACHE_URL.
import { serveSecondProcess } from "./second-process.js";
import { syncTestApp } from "./sync-test-app.js";

await serveSecondProcess(async ({ database, teardown }) => {
  const env: Record<string, string> = process.env.CACHE_URL ? { CACHE_URL: process.env.CACHE_URL } : {};
  const { url, socketUrl, logs } = await syncTestApp({ teardown }, { realtime: {}, database, env });
  return { url: url!, socketUrl, logs };
});
