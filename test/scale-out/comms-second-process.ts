// The second process of test/scale-out/comms.test.ts.
import { serveSecondProcess } from "../support/second-process.js";
import { scaleOutCommsApp } from "./comms-app.js";

await serveSecondProcess(async ({ database, teardown }) => {
  const { url, logs } = await scaleOutCommsApp({ teardown }, database);
  return { url, logs };
});
