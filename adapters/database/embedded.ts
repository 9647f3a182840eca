import path from "node:path";
import type { DatabaseConnector, OpenDatabase } from "../../contracts/database.js";
import { acquireDefaultConnection } from "./shared-connection.js";

export interface EmbeddedDatabaseOptions {
  /** Directory for the engine's journal; in-memory when omitted. */
  dbPath?: string;
  /** Database name, default `svc`. */
  dbName?: string;
}

type RunningEngine = Awaited<ReturnType<typeof import("../embedded-mongo/index.js").startEmbeddedMongo>>;

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
      engine: import("../embedded-mongo/index.js").then(({ startEmbeddedMongo }) => startEmbeddedMongo({ dbPath })),
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
      const where = options.dbPath === undefined ? "memory" : path.resolve(options.dbPath);
      return {
        kind: "embedded",
        displayUri: `${engine.uri} (embedded, ${where})`,
        connection: connection.connection,
        close: async () => {
          await connection.release();
          await releaseEngine();
        },
      };
    },
  };
}
