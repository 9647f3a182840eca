import test from "ava";
import { startEmbeddedMongo } from "../index.js";

test("a port in use rejects the start without logging the listen error as well", async (t) => {
  const quiet = () => {};
  const first = await startEmbeddedMongo({ logger: { error: quiet, warn: quiet, info: quiet, debug: quiet } });
  t.teardown(() => first.stop());
  const logged: unknown[][] = [];
  const logger = { error: (...args: unknown[]) => void logged.push(args), warn: quiet, info: quiet, debug: quiet };
  await t.throwsAsync(startEmbeddedMongo({ port: first.port, logger }), { code: "EADDRINUSE" });
  await t.throwsAsync(startEmbeddedMongo({ port: 0, host: "192.0.2.1", logger }), { code: "EADDRNOTAVAIL" });
  t.deepEqual(logged, [], "the rejection is the only report");
});
