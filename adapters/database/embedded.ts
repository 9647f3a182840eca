import path from "node:path";
import type { DatabaseConnector, OpenDatabase } from "../../contracts/database.js";
import { acquireDefaultConnection } from "./shared-connection.js";

export interface EmbeddedDatabaseOptions {
  /** Directory for the engine's journal; in-memory when omitted. */
  dbPath?: string;
  /** Database name, default `svc`. */
  dbName?: string;
}

/** The engine this process uses: its own, or (`ownerPid`) the one another process runs on the same data directory. */
interface RunningEngine {
  readonly uri: string;
  readonly ownerPid?: number;
  stop(): Promise<void>;
}

/**
 * Apps in one process that use the same data directory (or memory) share one engine, as they
 * share mongoose's default connection; the last app to close stops it.
 */
const engines = new Map<string, { engine: Promise<RunningEngine>; holders: number }>();

async function acquireEngine(dbPath: string | undefined): Promise<{ engine: RunningEngine; release: () => Promise<void> }> {
  const key = dbPath === undefined ? ":memory:" : path.resolve(dbPath);
  let entry = engines.get(key);
  if (!entry) {
    // Loaded on demand: apps on a real MongoDB never load the engine.
    entry = {
      engine: import("../embedded-mongo/index.js").then(async ({ startEmbeddedMongo, DataDirectoryInUseError }): Promise<RunningEngine> => {
        try {
          return await startEmbeddedMongo({ dbPath });
        } catch (error) {
          // The directory is another live process's (a command run beside `npm start`): one
          // engine per directory, so connect to that one rather than fail.
          if (error instanceof DataDirectoryInUseError && error.uri) return { uri: error.uri, ownerPid: error.ownerPid, stop: async () => {} };
          throw error;
        }
      }),
      holders: 0,
    };
    engines.set(key, entry);
  }
  entry.holders += 1;
  const held = entry;
  let engine: RunningEngine;
  try {
    engine = await held.engine;
  } catch (error) {
    held.holders -= 1;
    if (engines.get(key) === held) engines.delete(key);
    throw error;
  }
  return {
    engine,
    release: async () => {
      held.holders -= 1;
      if (held.holders > 0) return;
      engines.delete(key);
      await engine.stop();
    },
  };
}

/**
 * Starts (or joins) the embedded MongoDB-compatible engine in this process and connects mongoose
 * to it over loopback. The default outside production when `DB_URI` is unset.
 *
 * @example
 * const connector = createEmbeddedConnector({ dbPath: ".svc/data" });
 */
export function createEmbeddedConnector(options: EmbeddedDatabaseOptions = {}): DatabaseConnector {
  return {
    kind: "embedded",
    async open(): Promise<OpenDatabase> {
      const { engine, release: releaseEngine } = await acquireEngine(options.dbPath);
      let connection;
      try {
        connection = await acquireDefaultConnection({ uri: engine.uri, dbName: options.dbName ?? "svc" });
      } catch (error) {
        await releaseEngine();
        throw error;
      }
      const where = options.dbPath === undefined ? "memory" : `${path.resolve(options.dbPath)}${engine.ownerPid === undefined ? "" : `, run by process ${engine.ownerPid}`}`;
      return {
        kind: "embedded",
        displayUri: `${engine.uri} (embedded, ${where})`,
        inMemory: options.dbPath === undefined,
        connection: connection.connection,
        close: async () => {
          await connection.release();
          await releaseEngine();
        },
      };
    },
  };
}
