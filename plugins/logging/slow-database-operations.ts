import type { SvcLogger } from "../../kernel/logger.js";
import { getRequestContext, runWithRequestContext, type RequestContext } from "../../kernel/request-context.js";

/** The MongoDB driver's command-monitoring events (emitted when `monitorCommands: true`). */
export interface CommandStartedEvent {
  requestId: number;
  commandName: string;
  databaseName: string;
  command: Record<string, unknown>;
}
export interface CommandFinishedEvent {
  requestId: number;
  commandName: string;
  duration: number;
  /** The server's reply (succeeded events only). */
  reply?: unknown;
}

/** Anything that emits the driver's command events: a `MongoClient` (`connection.getClient()`). */
export interface CommandEventSource {
  on(event: "commandStarted", listener: (event: CommandStartedEvent) => void): unknown;
  on(event: "commandSucceeded" | "commandFailed", listener: (event: CommandFinishedEvent) => void): unknown;
  off(event: "commandStarted", listener: (event: CommandStartedEvent) => void): unknown;
  off(event: "commandSucceeded" | "commandFailed", listener: (event: CommandFinishedEvent) => void): unknown;
}

export interface SlowDatabaseOperationOptions {
  /** `SLOW_DB_QUERY_THRESHOLD_MS` (default 1000). */
  thresholdMs: number;
  logger: SvcLogger | (() => SvcLogger);
}

// Handshakes, heartbeats and auth are not application operations.
const IGNORED = new Set(["hello", "ismaster", "isMaster", "ping", "buildInfo", "saslStart", "saslContinue", "endSessions", "killCursors"]);

/**
 * Logs a `warn` line for every database command slower than `thresholdMs`, with the collection,
 * the operation (`find`, `insert`, `aggregate`, ...), the database and the duration, in the
 * correlation scope of the request that issued it. Returns a function that stops monitoring.
 * The connection must have been opened with `monitorCommands: true` (the framework's own
 * connection is).
 *
 * @example
 * const stop = monitorSlowDatabaseOperations(mongoose.connection.getClient(), { thresholdMs: 1000, logger });
 */
export function monitorSlowDatabaseOperations(source: CommandEventSource, options: SlowDatabaseOperationOptions): () => void {
  const resolveLogger = typeof options.logger === "function" ? options.logger : () => options.logger as SvcLogger;
  const pending = new Map<number, { collection?: string; databaseName: string; context?: RequestContext }>();
  // Cursors that wait for data by design (change streams, tailable awaitData finds): their
  // getMores block until something happens, so their duration says nothing about speed.
  const openingAwaitCursors = new Set<number>();
  const awaitCursors = new Set<string>();
  const awaitGetMores = new Map<number, string>();
  const started = (event: CommandStartedEvent) => {
    if (opensAwaitCursor(event)) openingAwaitCursors.add(event.requestId);
    if (event.commandName === "killCursors") {
      for (const id of (event.command.cursors as unknown[] | undefined) ?? []) awaitCursors.delete(String(id));
    }
    if (event.commandName === "getMore" && awaitCursors.has(String(event.command.getMore))) {
      awaitGetMores.set(event.requestId, String(event.command.getMore));
      return;
    }
    if (IGNORED.has(event.commandName) || isAwaitDataWait(event)) return;
    pending.set(event.requestId, {
      collection: collectionOf(event),
      databaseName: event.databaseName,
      context: getRequestContext(),
    });
  };
  const finished = (failed: boolean) => (event: CommandFinishedEvent) => {
    trackAwaitCursor(event, failed);
    const start = pending.get(event.requestId);
    if (!start) return;
    pending.delete(event.requestId);
    if (!(event.duration > options.thresholdMs)) return;
    const write = () =>
      resolveLogger().warn(`Slow database operation: ${event.commandName} on ${start.collection ?? start.databaseName} took ${Math.round(event.duration)}ms`, {
        collection: start.collection,
        operation: event.commandName,
        database: start.databaseName,
        durationMs: Math.round(event.duration * 10) / 10,
        slowDbQueryThresholdMs: options.thresholdMs,
        failed: failed || undefined,
      });
    if (start.context) runWithRequestContext(start.context, write);
    else write();
  };
  const trackAwaitCursor = (event: CommandFinishedEvent, failed: boolean) => {
    const cursorId = (event.reply as { cursor?: { id?: unknown } } | undefined)?.cursor?.id;
    if (openingAwaitCursors.delete(event.requestId) && !failed && cursorId !== undefined && String(cursorId) !== "0") {
      awaitCursors.add(String(cursorId));
    }
    const waitedOn = awaitGetMores.get(event.requestId);
    if (waitedOn !== undefined) {
      awaitGetMores.delete(event.requestId);
      // A failed getMore or a returned id of 0 means the cursor is gone.
      if (failed || String(cursorId) === "0") awaitCursors.delete(waitedOn);
    }
  };
  const succeeded = finished(false);
  const failedListener = finished(true);
  source.on("commandStarted", started);
  source.on("commandSucceeded", succeeded);
  source.on("commandFailed", failedListener);
  return () => {
    source.off("commandStarted", started);
    source.off("commandSucceeded", succeeded);
    source.off("commandFailed", failedListener);
    pending.clear();
    awaitCursors.clear();
    awaitGetMores.clear();
    openingAwaitCursors.clear();
  };
}

/** An aggregate starting with `$changeStream`, or a tailable awaitData find. */
function opensAwaitCursor(event: CommandStartedEvent): boolean {
  if (event.commandName === "aggregate") {
    const first = (event.command.pipeline as Array<Record<string, unknown>> | undefined)?.[0];
    return first !== undefined && "$changeStream" in first;
  }
  return event.commandName === "find" && event.command.tailable === true && event.command.awaitData === true;
}

/**
 * A `getMore` carrying `maxTimeMS` is how drivers wait on a tailable/awaitData cursor (change
 * streams, e.g. the feature-flag cache): it is meant to block until data or the timeout, so its
 * duration says nothing about the database's speed.
 */
function isAwaitDataWait(event: CommandStartedEvent): boolean {
  return event.commandName === "getMore" && event.command.maxTimeMS !== undefined;
}

function collectionOf(event: CommandStartedEvent): string | undefined {
  // Most commands name the collection as the value of the command key ({find: "users"});
  // getMore names it in `collection`.
  const named = event.command[event.commandName];
  if (typeof named === "string") return named;
  const collection = event.command.collection;
  return typeof collection === "string" ? collection : undefined;
}
