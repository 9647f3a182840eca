import { randomBytes } from "node:crypto";
import mongoose from "mongoose";
import { SvcApp, type SvcAppOptions } from "./svc-app.js";

/** The database a test process uses. */
export interface TestDatabase {
  /** Connection string without a database name. */
  readonly uri: string;
  /** The database this process owns (unique per process on a shared real MongoDB). */
  readonly dbName: string;
  /** `embedded` (fresh in-memory engine) or `external` (`SVC_TEST_DB_URI`). */
  readonly kind: "embedded" | "external";
}

let current: Promise<{ database: TestDatabase; stop: () => Promise<void> }> | undefined;

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
  current ??= (async () => {
    const external = process.env.SVC_TEST_DB_URI;
    if (external) {
      const dbName = `svc_test_${process.pid}_${randomBytes(4).toString("hex")}`;
      return {
        database: { uri: external, dbName, kind: "external" as const },
        stop: () => dropDatabase(external, dbName),
      };
    }
    const { startEmbeddedMongo } = await import("../adapters/embedded-mongo/index.js");
    const engine = await startEmbeddedMongo({});
    return { database: { uri: engine.uri, dbName: "svc_test", kind: "embedded" as const }, stop: () => engine.stop() };
  })();
  return current.then((started) => started.database);
}

/** Drops the process's real test database, or stops its embedded engine. */
export async function stopTestDatabase(): Promise<void> {
  const started = current;
  current = undefined;
  if (started) await (await started).stop();
}

async function dropDatabase(uri: string, dbName: string): Promise<void> {
  const connection = await mongoose.createConnection(uri, { dbName }).asPromise();
  try {
    await connection.dropDatabase();
  } finally {
    await connection.close();
  }
}

/**
 * An `SvcApp` wired to the test database, with `NODE_ENV=test` and no signal handlers.
 *
 * @example
 * const app = (await createTestApp()).register(modelRouter("/todos", Todo, options));
 * const http = await app.build();
 * await request(http).get("/todos").expect(200);
 */
export async function createTestApp(options: SvcAppOptions = {}): Promise<SvcApp> {
  const database = await startTestDatabase();
  return new SvcApp({
    handleSignals: false,
    ...options,
    env: { NODE_ENV: "test", ...(options.env ?? {}) },
    database: options.database === false ? false : { uri: database.uri, dbName: database.dbName, ...options.database },
  });
}
