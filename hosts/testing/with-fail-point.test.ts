import test from "ava";
import mongoose from "mongoose";
import { startTestDatabase, stopTestDatabase, withFailPoint } from "../testing.js";
import type { TestDatabase } from "../testing.js";

// withFailPoint through svc/testing's public exports, and the driver behaviours it lets a test
// show: withTransaction retrying a transient commit error, a retryable write retried once.
// Fail points are server-wide: the tests run one at a time, and each point is narrowed to this
// process's connection (its appName), as other test processes may share a real MongoDB.

interface Item {
  n: number;
}
const Item = mongoose.models.WithFailPointItem ?? mongoose.model<Item>("WithFailPointItem", new mongoose.Schema<Item>({ n: Number }));

const appName = `svc-with-fail-point-test-${process.pid}`;
let database: TestDatabase;
const commands: string[] = [];
test.before(async () => {
  database = await startTestDatabase();
  await mongoose.connect(database.uri, { dbName: database.dbName, appName, heartbeatFrequencyMS: 500, monitorCommands: true });
  mongoose.connection.getClient().on("commandStarted", (event) => commands.push(event.commandName));
  await Item.createCollection();
});
test.beforeEach(async () => {
  await Item.deleteMany({});
  commands.length = 0;
});
test.after.always(async () => {
  await mongoose.disconnect();
  await stopTestDatabase();
});

const count = (name: string) => commands.filter((command) => command === name).length;

test.serial("withTransaction retries the whole transaction after a transient commit error", async (t) => {
  let attempts = 0;
  await withFailPoint(database.uri, { mode: { times: 1 }, data: { failCommands: ["commitTransaction"], errorCode: 251, appName } }, async () => {
    await mongoose.connection.transaction(async (session) => {
      attempts++;
      await Item.create([{ n: 1 }], { session });
    });
  });
  t.is(attempts, 2, "the callback ran again");
  t.is(count("commitTransaction"), 2);
  t.deepEqual((await Item.find().lean()).map((item) => item.n), [1], "committed exactly once");
});

test.serial("a commit whose outcome is unknown is retried alone (UnknownTransactionCommitResult)", async (t) => {
  let attempts = 0;
  const session = await mongoose.startSession();
  t.teardown(() => session.endSession());
  await withFailPoint(database.uri, { mode: { times: 1 }, data: { failCommands: ["commitTransaction"], errorCode: 91, appName } }, () =>
    session.withTransaction(async () => {
      attempts++;
      await Item.create([{ n: 2 }], { session });
    }),
  );
  t.is(attempts, 1, "the callback ran once");
  t.is(count("commitTransaction"), 2, "the commit was sent again");
  t.is(await Item.countDocuments({ n: 2 }), 1);
});

test.serial("a retryable write is retried once on a labelled error, and the fail point is off afterwards", async (t) => {
  await withFailPoint(database.uri, { mode: { times: 1 }, data: { failCommands: ["insert"], errorCode: 189, appName } }, () => Item.create({ n: 3 }));
  t.is(count("insert"), 2);
  t.is(await Item.countDocuments({ n: 3 }), 1);

  await t.throwsAsync(
    withFailPoint(database.uri, { mode: "alwaysOn", data: { failCommands: ["insert"], errorCode: 2, appName } }, async () => {
      await Item.create({ n: 4 });
    }),
    { message: /failpoint/ },
  );
  t.is(await Item.countDocuments({ n: 4 }), 0);
  await Item.create({ n: 5 });
  t.is(await Item.countDocuments({ n: 5 }), 1, "the point was turned off although fn threw");
});
