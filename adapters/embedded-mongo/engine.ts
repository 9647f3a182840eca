import { ObjectId } from "bson";
import type { Document } from "bson";
import type { CommandHandler, ConnectionInfo } from "./commands/command-context.js";
import { createCommandTable } from "./commands/command-table.js";
import { dispatchCommand } from "./commands/dispatch-command.js";
import { plainReply } from "./cursors/cursor-reply-encoder.js";
import { CursorRegistry } from "./cursors/cursor-registry.js";
import type { EngineLogger } from "./engine-logger.js";
import { resolveEngineOptions } from "./engine-options.js";
import type { EngineOptions, ResolvedEngineOptions } from "./engine-options.js";
import type { EngineServices } from "./engine-services.js";
import { configureFailPointCommand } from "./fail-points/configure-fail-point-command.js";
import { FailPointRegistry } from "./fail-points/fail-point-registry.js";
import { LOGICAL_SESSION_TIMEOUT_MINUTES } from "./sessions/logical-session.js";
import { SessionRegistry } from "./sessions/session-registry.js";
import { Storage } from "./storage/storage.js";
import { sweepExpiredDocuments } from "./storage/ttl-sweeper.js";

/** The connection in-process calls are attributed to. */
const IN_PROCESS: ConnectionInfo = { id: 0, remoteAddress: "in-process" };

/**
 * The database engine without the network: storage, cursors, command dispatch and background
 * timers. `startEmbeddedMongo` puts a wire server in front of it; tests and benchmarks may call
 * `runCommand` directly (the same code path minus TCP and BSON framing).
 *
 * @example
 * const engine = createEngine();
 * await engine.runCommand("app", {insert: "todos", documents: [{title: "x"}]});
 * await engine.runCommand("app", {find: "todos"}); // {cursor: {firstBatch: [...], id: 0n, ns}, ok: 1}
 * engine.close();
 */
export class Engine implements EngineServices {
  readonly storage: Storage;
  readonly cursors: CursorRegistry;
  readonly sessions: SessionRegistry;
  readonly failPoints = new FailPointRegistry();
  readonly logger: EngineLogger;
  readonly options: ResolvedEngineOptions;
  readonly processId = new ObjectId();
  readonly startedAt = new Date();
  advertisedAddress = "127.0.0.1:27017";
  connectionCount = 0;
  private readonly handlers: Map<string, CommandHandler>;
  private durabilityBarrier: (() => Promise<void>) | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(options: EngineOptions = {}) {
    this.options = resolveEngineOptions(options);
    this.logger = this.options.logger;
    this.storage = new Storage({ oplogCapacity: this.options.oplogCapacity, logger: this.logger });
    this.cursors = new CursorRegistry({ idleTimeoutMs: this.options.cursorIdleTimeoutMs });
    this.sessions = new SessionRegistry({
      storage: this.storage,
      cursors: this.cursors,
      logger: this.logger,
      transactionLifetimeLimitMs: this.options.transactionLifetimeLimitSeconds * 1000,
      sessionTimeoutMs: LOGICAL_SESSION_TIMEOUT_MINUTES * 60_000,
    });
    this.handlers = createCommandTable();
    if (this.options.enableTestCommands) this.handlers.set("configureFailPoint", configureFailPointCommand);
    // Background timers never keep the process alive on their own.
    this.timers.push(setInterval(() => this.cursors.sweep(), this.options.cursorSweepIntervalMs).unref());
    // Expired transactions are aborted within a second (or the limit, if shorter) of expiring.
    const sessionSweepMs = Math.max(10, Math.min(1000, this.options.transactionLifetimeLimitSeconds * 1000));
    this.timers.push(setInterval(() => this.sessions.sweep(), sessionSweepMs).unref());
    if (this.options.ttlIntervalMs > 0) {
      this.timers.push(setInterval(() => this.sweepTtl(), this.options.ttlIntervalMs).unref());
    }
  }

  /**
   * Runs a command and returns the reply as plain objects (cursor batches as arrays). Values keep
   * their exact BSON types (Int32, Double, Long... as `deserialize(..., {promoteValues: false})`
   * gives them); stored documents are returned by reference and must not be mutated.
   */
  async runCommand(db: string, command: Document, connection: ConnectionInfo = IN_PROCESS): Promise<Document> {
    return plainReply(await this.execute(db, command, connection));
  }

  /**
   * Runs a command for the wire layer: the reply may hold a `CursorBatch` whose documents are
   * already serialized (see `encodeReply`).
   */
  execute(db: string, command: Document, connection: ConnectionInfo): Promise<Document> {
    return dispatchCommand(
      { services: this, handlers: this.handlers, durabilityBarrier: this.durabilityBarrier },
      db,
      command,
      connection,
    );
  }

  /**
   * Installs the hook awaited before replying to any command that committed writes: where the
   * journal flushes (and fsyncs) the batches it appended from `storage.oplog.subscribe`.
   */
  setDurabilityBarrier(barrier: (() => Promise<void>) | undefined): void {
    this.durabilityBarrier = barrier;
  }

  awaitDurability(): Promise<void> {
    return this.durabilityBarrier ? this.durabilityBarrier() : Promise.resolve();
  }

  /** Deletes expired TTL documents now (the timer calls this); returns how many. */
  sweepTtl(): number {
    if (this.closed) return 0;
    try {
      return sweepExpiredDocuments(this.storage, this.logger, Date.now());
    } catch (error) {
      this.logger.error("embedded-mongo: TTL sweep failed", error);
      return 0;
    }
  }

  /** Stops the timers and closes every cursor. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    this.sessions.close();
    this.cursors.closeAll();
  }
}

/**
 * Creates an in-process engine (no TCP).
 *
 * @example
 * const engine = createEngine({cursorIdleTimeoutMs: 1000});
 */
export function createEngine(options: EngineOptions = {}): Engine {
  return new Engine(options);
}
