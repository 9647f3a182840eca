// The second process of test/scale-out/auth.test.ts.
import { serveSecondProcess } from "../support/second-process.js";
import { scaleOutAuthApp } from "./auth-app.js";

await serveSecondProcess(async ({ database, teardown }) => {
  const { url, logs } = await scaleOutAuthApp({ teardown }, database);
  return { url, logs };
});
