import type { Document, ObjectId } from "bson";
import type { ConnectionInfo } from "./commands/command-context.js";
import type { CursorRegistry } from "./cursors/cursor-registry.js";
import type { EngineLogger } from "./engine-logger.js";
import type { FailPointRegistry } from "./fail-points/fail-point-registry.js";
import type { ResolvedEngineOptions } from "./engine-options.js";
import type { SessionRegistry } from "./sessions/session-registry.js";
import type { Storage } from "./storage/storage.js";

/**
 * The engine's shared state as command handlers see it (an interface so handlers do not import
 * the `Engine` class and create a cycle).
 */
export interface EngineServices {
  readonly storage: Storage;
  readonly cursors: CursorRegistry;
  /** Logical sessions, transactions and the retryable-write table. */
  readonly sessions: SessionRegistry;
  /** Fault injection (`configureFailPoint`); `armed` is false while no fail point is set. */
  readonly failPoints: FailPointRegistry;
  readonly logger: EngineLogger;
  readonly options: ResolvedEngineOptions;
  /** `host:port` the server is reachable at (hello's `me`, `hosts`, `primary`). */
  readonly advertisedAddress: string;
  /** hello's `topologyVersion.processId`: fixed for the life of the engine. */
  readonly processId: ObjectId;
  readonly startedAt: Date;
  /** Current number of client connections (serverStatus). */
  readonly connectionCount: number;
  /** Deletes expired documents of TTL indexes now; returns how many. */
  sweepTtl(): number;
  /**
   * Resolves once every write committed so far is durable (the journal's barrier; at once without
   * one). Change streams await it before handing out events, which must never show a write a
   * crash could still lose.
   */
  awaitDurability(): Promise<void>;
  /** Runs a command as if sent by `connection` (aggregation sub-operations, tests). */
  runCommand(db: string, command: Document, connection?: ConnectionInfo): Promise<Document>;
}
