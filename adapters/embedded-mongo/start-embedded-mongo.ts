import { createEngine } from "./engine.js";
import type { Engine } from "./engine.js";
import type { EngineOptions } from "./engine-options.js";
import { acquireDbPathLock } from "./dbpath-lock.js";
import type { DbPathLock } from "./dbpath-lock.js";
import { openJournal } from "./journal/journal.js";
import type { Journal } from "./journal/journal.js";
import type { JournalOptions } from "./journal/journal-options.js";
import type { ReplayedBatchListener } from "./journal/recover-data-directory.js";
import { WireServer } from "./wire/wire-server.js";

/** Options of {@link startEmbeddedMongo}. */
export interface StartEmbeddedMongoOptions extends EngineOptions {
  /**
   * Data directory. Locked exclusively (a second engine on it fails, naming the path). Every
   * acknowledged write is journaled there (checksummed, fsynced before the reply by default)
   * and recovered at the next start, after a clean stop or a crash alike. In memory when omitted.
   */
  readonly dbPath?: string | undefined;
  /** Journal settings (with `dbPath` only): fsync mode, compaction threshold. */
  readonly journal?: JournalOptions | undefined;
  /** TCP port; 0 or omitted picks a free ephemeral port. */
  readonly port?: number | undefined;
  /** Interface to listen on. Default `127.0.0.1`. */
  readonly host?: string | undefined;
}

/** A running engine. */
export interface RunningEmbeddedMongo {
  /**
   * `mongodb://host:port/?directConnection=true` — no database name; pass `dbName` to mongoose.
   * The replica-set form (`?replicaSet=<replicaSetName>`) works as well.
   */
  readonly uri: string;
  readonly port: number;
  readonly host: string;
  /** The replica set name `hello` reports. */
  readonly replicaSetName: string;
  /** The engine itself, for in-process calls (`engine.runCommand`) and tests (`engine.sweepTtl()`). */
  readonly engine: Engine;
  /** The journal of `dbPath` (`compact()`, `stats()`, `recovery`); absent in memory. */
  readonly journal: Journal | undefined;
  /** Closes every client connection, stops the server and timers, releases the data directory. */
  stop(): Promise<void>;
}

/**
 * Rebuilds the retryable-write table from replayed batches (their entries carry `lsid` and
 * `txnNumber`): a retry that reaches the restarted engine gets its original result instead of
 * writing twice, and a commitTransaction retry of a recovered transaction answers ok.
 */
function retryableWriteRecovery(engine: Engine): ReplayedBatchListener | undefined {
  return (entries) => engine.sessions.replayCommittedBatch(entries);
}

/**
 * Starts the embedded MongoDB-compatible engine on a loopback TCP port. The unmodified `mongodb`
 * driver and mongoose connect to `uri` as to a single-node replica set.
 *
 * @example
 * const db = await startEmbeddedMongo();
 * await mongoose.connect(db.uri, {dbName: "app"});
 * // ...
 * await mongoose.disconnect();
 * await db.stop();
 */
export async function startEmbeddedMongo(options: StartEmbeddedMongoOptions = {}): Promise<RunningEmbeddedMongo> {
  const host = options.host ?? "127.0.0.1";
  let lock: DbPathLock | undefined;
  if (options.dbPath !== undefined) lock = acquireDbPathLock(options.dbPath);
  const engine = createEngine(options);
  const server = new WireServer(engine);
  let journal: Journal | undefined;
  let bound: { port: number; host: string };
  try {
    if (options.dbPath !== undefined) {
      // Recover before listening: no client may see (or write to) a half-rebuilt state.
      const onReplayedBatch = retryableWriteRecovery(engine);
      journal = await openJournal({
        ...options.journal,
        storage: engine.storage,
        directory: options.dbPath,
        logger: engine.logger,
        ...(onReplayedBatch ? { onReplayedBatch } : {}),
      });
      const opened = journal;
      engine.setDurabilityBarrier(() => opened.flush());
    }
    bound = await server.listen(options.port ?? 0, host);
  } catch (error) {
    engine.close();
    await journal?.close().catch(() => {});
    lock?.release();
    throw error;
  }
  // hello must name the address clients dial; a wildcard bind is reached through loopback.
  const advertisedHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const hostPart = advertisedHost.includes(":") ? `[${advertisedHost}]` : advertisedHost;
  engine.advertisedAddress = `${hostPart}:${bound.port}`;
  lock?.advertise(`mongodb://${hostPart}:${bound.port}/?directConnection=true`);
  let stopping: Promise<void> | undefined;
  return {
    uri: `mongodb://${hostPart}:${bound.port}/?directConnection=true`,
    port: bound.port,
    host: advertisedHost,
    replicaSetName: engine.options.replicaSetName,
    engine,
    journal,
    stop() {
      stopping ??= (async () => {
        try {
          await server.close();
          engine.close();
          // After the last client is gone: snapshot, fsync, close (a clean restart replays nothing).
          await journal?.close();
        } finally {
          lock?.release();
        }
      })();
      return stopping;
    },
  };
}
