// The second process of test/scale-out/feature-flags.test.ts (and, on the parent's Redis when it
// passes CACHE_URL, of feature-flags-redis.test.ts). It follows flag changes by polling (every
// 100 ms) where the first process follows the change stream, so the files cover both.
import { serveSecondProcess } from "../support/second-process.js";
import { flagsApp } from "./flags-app.js";

await serveSecondProcess(async ({ database, teardown }) => {
  const env: Record<string, string> = process.env.CACHE_URL ? { CACHE_URL: process.env.CACHE_URL } : {};
  const { url, socketUrl, logs } = await flagsApp({ teardown }, { database, env, flags: { changeDetection: "poll", pollIntervalMs: 100 } });
  return { url, socketUrl, logs };
});
