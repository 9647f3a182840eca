import type { TestFn } from "ava";
import { MongoClient } from "mongodb";
import { startEmbeddedMongo } from "../start-embedded-mongo.js";
import type { RunningEmbeddedMongo } from "../start-embedded-mongo.js";
import { silentLogger } from "./silent-logger.js";

/** One engine shared by the tests of a file, and a driver client connected to it. */
export interface FileEngine {
  /** The running engine (available from the first test on). */
  readonly server: RunningEmbeddedMongo;
  /** A `MongoClient` connected to it (available from the first test on). */
  readonly client: MongoClient;
  /** A database name no other test of the file uses, so tests can run concurrently. */
  freshDb(label: string): string;
}

/**
 * Starts one in-memory engine and one driver client for the whole test file (`test.before`) and
 * stops both after it (`test.after.always`). Starting an engine per test would dominate the run
 * time; a fresh database per test (`freshDb`) isolates tests instead.
 *
 * @example
 * const engine = useFileEngine(test, "e2e");
 * test("inserts", async (t) => {
 *   await engine.client.db(engine.freshDb("insert")).collection("c").insertOne({ x: 1 });
 * });
 */
export function useFileEngine(test: TestFn, dbPrefix: string): FileEngine {
  let server: RunningEmbeddedMongo | undefined;
  let client: MongoClient | undefined;
  let dbCounter = 0;
  test.before(async () => {
    server = await startEmbeddedMongo({ logger: silentLogger });
    client = await new MongoClient(server.uri).connect();
  });
  test.after.always(async () => {
    await client?.close();
    await server?.stop();
  });
  return {
    get server(): RunningEmbeddedMongo {
      if (!server) throw new Error("the file's engine is not started yet: use it inside a test");
      return server;
    },
    get client(): MongoClient {
      if (!client) throw new Error("the file's engine is not started yet: use it inside a test");
      return client;
    },
    freshDb: (label) => `${dbPrefix}_${label}_${dbCounter++}`,
  };
}
