// The second process of test/scale-out/feature-flags.test.ts. It follows flag changes by polling
// (every 100 ms) where the first process follows the change stream, so the file covers both.
import { serveSecondProcess } from "../support/second-process.js";
import { flagsApp } from "./flags-app.js";

await serveSecondProcess(async ({ database, teardown }) => {
  const { url, socketUrl, logs } = await flagsApp({ teardown }, { database, flags: { changeDetection: "poll", pollIntervalMs: 100 } });
  return { url, socketUrl, logs };
});
