import test from "ava";
import mongoose from "mongoose";
import nock from "nock";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { createSvcLogger } from "./create-logger.js";
import { LogCapture } from "./log-capture.js";
import { runWithRequestContext } from "../../kernel/request-context.js";

nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

test.after.always(() => stopTestDatabase());

test("an app on a real driver connection logs slow operations with collection and operation", async (t) => {
  const capture = new LogCapture();
  const logger = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
  // Threshold 0: every operation counts as slow, so no test has to wait for a slow one.
  const app = await createTestApp({ env: { SLOW_DB_QUERY_THRESHOLD_MS: "0" }, logger });
  t.teardown(() => app.stop());
  await app.build();
  const Widget = mongoose.models.SlowOpWidget ?? mongoose.model("SlowOpWidget", new mongoose.Schema({ name: String }));
  await runWithRequestContext({ requestId: "req-db-int" }, async () => {
    await Widget.create({ name: "a" });
    await Widget.find({ name: "a" }).lean();
  });
  const slow = capture.lines.filter((line) => line.level === "warn" && line.requestId === "req-db-int");
  const operations = slow.map((line) => `${String(line.operation)}:${String(line.collection)}`);
  t.true(operations.includes("insert:slowopwidgets"), operations.join(", "));
  t.true(operations.includes("find:slowopwidgets"), operations.join(", "));
});
