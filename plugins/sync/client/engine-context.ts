import type { createDebugLog } from "./debug-log.js";
import type { LocalDatabase } from "./local-database.js";
import type { SyncHttpChannel, SyncTransport } from "./transport.js";

/** The settings the engine runs with (options with their defaults applied). */
export interface EngineSettings {
  readonly batchSize: number;
  readonly haltQueueOnConflict: boolean;
  readonly snapshotPageSize: number;
  readonly seqJumpReconcileMinIntervalMs: number;
  readonly tombstoneRetentionMs: number;
}

/** Why replay paused for credentials (passed to `onAuthRequired`). */
export type AuthPauseReason = "expired" | "disabled" | "unauthorized";

/** What the engine's parts (stream pager, outbox sender) share. */
export interface EngineContext {
  readonly database: LocalDatabase;
  readonly collections: readonly string[];
  readonly settings: EngineSettings;
  readonly transport: SyncTransport;
  readonly http: SyncHttpChannel;
  readonly debug: ReturnType<typeof createDebugLog>;
  now(): number;
  random(): number;
  /** The current token; pauses for auth (and rejects with kind `auth`) when there is none. */
  token(): Promise<string>;
  /** Started, not offline by `goOffline()`, not paused for auth. */
  active(): boolean;
  pauseAuth(reason: AuthPauseReason): void;
  /** The engine's own state changed: recompute the status. */
  changed(): void;
}

/** Node keeps a process alive for a pending timer; browsers have no `unref`. */
export function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
