import { randomBytes } from "node:crypto";
import mongoose from "mongoose";

type MongoClient = InstanceType<typeof mongoose.mongo.MongoClient>;

/** The database a test process uses. */
export interface TestDatabase {
  /** Connection string without a database name. */
  readonly uri: string;
  /** The database this process owns (unique per process on a shared real MongoDB). */
  readonly dbName: string;
  /** `embedded` (fresh in-memory engine) or `external` (`SVC_TEST_DB_URI`). */
  readonly kind: "embedded" | "external";
}

interface StartedTestDatabase {
  database: TestDatabase;
  stop: () => Promise<void>;
  /**
   * Opened by the first `resetTestDatabase()`, closed before the database goes away. A driver
   * client rather than a mongoose connection: `mongoose.disconnect()`, which the last app to stop
   * calls, closes every mongoose connection.
   */
  resetClient?: Promise<MongoClient>;
}

// One per process on purpose: every app in a process shares mongoose's default connection, so
// they must all use one database (see adapters/database/shared-connection.ts).
let current: Promise<StartedTestDatabase> | undefined;

/**
 * The test database of this process, started on first use: a fresh in-memory embedded engine,
 * or — when `SVC_TEST_DB_URI` is set — a uniquely named database on that real MongoDB, so the
 * same suite runs against both. Call `stopTestDatabase()` when the process's tests are done.
 *
 * @example
 * test.before(async () => { db = await startTestDatabase(); });
 * test.after.always(() => stopTestDatabase());
 */
export function startTestDatabase(): Promise<TestDatabase> {
  current ??= (async (): Promise<StartedTestDatabase> => {
    const external = process.env.SVC_TEST_DB_URI;
    if (external) {
      const dbName = `svc_test_${process.pid}_${randomBytes(4).toString("hex")}`;
      return {
        database: { uri: external, dbName, kind: "external" as const },
        stop: () => dropDatabase(external, dbName),
      };
    }
    const { startEmbeddedMongo } = await import("../../adapters/embedded-mongo/index.js");
    const engine = await startEmbeddedMongo({});
    return { database: { uri: engine.uri, dbName: "svc_test", kind: "embedded" as const }, stop: () => engine.stop() };
  })();
  return current.then((started) => started.database);
}

/** Drops the process's real test database, or stops its embedded engine. */
export async function stopTestDatabase(): Promise<void> {
  const started = current;
  current = undefined;
  if (!started) return;
  const { stop, resetClient } = await started;
  if (resetClient) await (await resetClient).close();
  await stop();
}

/**
 * Empties every collection of the test database and keeps the collections and their indexes
 * (unique emails stay unique), on the embedded engine and on a real MongoDB alike. Call it
 * before each test of a file whose tests run one at a time (`test.serial` in ava; `node:test`
 * runs a file's tests in order): in a file whose tests run concurrently it would delete the
 * data of the tests still running.
 *
 * @example
 * test.beforeEach(() => resetTestDatabase());
 * test.serial("starts from an empty database", async (t) => { ... });
 */
export async function resetTestDatabase(): Promise<void> {
  await startTestDatabase();
  const started = await current!;
  started.resetClient ??= new mongoose.mongo.MongoClient(started.database.uri).connect();
  const db = (await started.resetClient).db(started.database.dbName);
  const collections = await db.listCollections({}, { nameOnly: true }).toArray();
  await Promise.all(
    collections
      // system.* collections belong to the server; views have no documents of their own.
      .filter((collection) => !collection.name.startsWith("system.") && collection.type !== "view")
      .map((collection) => db.collection(collection.name).deleteMany({})),
  );
}

// A driver client, as for resets: a mongoose connection would be closed under the drop by an app
// stopping at the same time (`mongoose.disconnect()` closes every mongoose connection).
async function dropDatabase(uri: string, dbName: string): Promise<void> {
  const client = await new mongoose.mongo.MongoClient(uri).connect();
  try {
    await client.db(dbName).dropDatabase();
  } finally {
    await client.close();
  }
}
