import mongoose, { type Connection } from "mongoose";
import { displayUri } from "./display-uri.js";
import { DatabaseErrors } from "./errors.js";

/**
 * Users declare models on mongoose's default connection (`mongoose.model(...)`), so every app in a
 * process must share that one connection. Apps take a reference; the last one to let go
 * disconnects. A connection the host opened itself before the app started is reused and never
 * closed by us. This is the one piece of process-wide state the framework keeps, because
 * mongoose's default connection is process-wide already.
 */
let holders = 0;
let target: string | undefined;
let ownedByUs = false;
let opening: Promise<void> | undefined;

export interface SharedConnectionOptions {
  uri: string;
  dbName?: string;
  serverSelectionTimeoutMS?: number;
}

/**
 * Takes a reference on the default mongoose connection, opening it on first use.
 *
 * @example
 * const { connection, release } = await acquireDefaultConnection({ uri, dbName: "app" });
 * // ...
 * await release();
 */
export async function acquireDefaultConnection(
  options: SharedConnectionOptions,
): Promise<{ connection: Connection; release: () => Promise<void> }> {
  const wanted = `${options.uri}#${options.dbName ?? ""}`;
  holders += 1;
  try {
    if (opening) await opening;
    const state = mongoose.connection.readyState;
    if (state === mongoose.ConnectionStates.connected && target === undefined) {
      // Opened by the host before us: share it, never close it.
      target = wanted;
      ownedByUs = false;
    } else if (target !== undefined && target !== wanted) {
      throw DatabaseErrors.CONNECTION_IN_USE(displayUri(options.uri), displayUri(target.split("#")[0]!));
    } else if (state !== mongoose.ConnectionStates.connected) {
      target = wanted;
      ownedByUs = true;
      opening = mongoose
        .connect(options.uri, {
          dbName: options.dbName,
          serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 10_000,
          // Command events feed the slow-database-operation log (SLOW_DB_QUERY_THRESHOLD_MS).
          monitorCommands: true,
        })
        .then(() => undefined)
        .finally(() => (opening = undefined));
      await opening;
    }
  } catch (error) {
    holders -= 1;
    if (holders === 0) target = undefined;
    if (error instanceof Error && "code" in error && error.code === DatabaseErrors.CONNECTION_IN_USE.code) throw error;
    throw DatabaseErrors.CONNECT_FAILED(displayUri(options.uri), error instanceof Error ? error.message : String(error));
  }
  let released = false;
  return {
    connection: mongoose.connection,
    release: async () => {
      if (released) return;
      released = true;
      holders -= 1;
      if (holders > 0) return;
      const close = ownedByUs;
      target = undefined;
      ownedByUs = false;
      if (close) await mongoose.disconnect();
    },
  };
}
