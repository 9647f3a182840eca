import type { EngineLogger } from "./engine-logger.js";
import { quietConsoleLogger } from "./engine-logger.js";

/**
 * Tuning knobs of the engine. Defaults follow mongod's; tests shorten the timers.
 *
 * @example
 * createEngine({cursorIdleTimeoutMs: 200, ttlIntervalMs: 50});
 */
export interface EngineOptions {
  /** Where protocol errors and warnings go. Default: errors/warnings to the console, rest dropped. */
  readonly logger?: EngineLogger;
  /** Idle cursors are closed after this long (mongod `cursorTimeoutMillis`: 10 minutes). */
  readonly cursorIdleTimeoutMs?: number;
  /** How often idle cursors are looked for. Default: a minute, or the timeout if shorter. */
  readonly cursorSweepIntervalMs?: number;
  /** How often TTL indexes are swept (mongod `ttlMonitorSleepSecs`: 60 s). 0 disables the timer. */
  readonly ttlIntervalMs?: number;
  /** Committed operations kept in the in-memory oplog (change-stream history). */
  readonly oplogCapacity?: number;
  /** Replica set name reported by `hello` (`setName`). */
  readonly replicaSetName?: string;
  /**
   * mongod `transactionLifetimeLimitSeconds` (default 60): a transaction still open after this is
   * aborted (its next statement or commit gets NoSuchTransaction 251). Fractions allowed.
   */
  readonly transactionLifetimeLimitSeconds?: number;
  /**
   * mongod's `enableTestCommands`: registers `configureFailPoint` (fault injection, see
   * docs/embedded-mongo.md). Default: on unless `NODE_ENV=production`, where the command is
   * unknown (CommandNotFound 59), as on a mongod started without test commands.
   */
  readonly enableTestCommands?: boolean;
  /**
   * What the `shutdown` admin command does (`svc-mongod` exits). Without it the
   * command is refused: an engine inside an application is stopped by the application.
   */
  readonly onShutdownCommand?: (() => void) | undefined;
}

export interface ResolvedEngineOptions {
  readonly logger: EngineLogger;
  readonly cursorIdleTimeoutMs: number;
  readonly cursorSweepIntervalMs: number;
  readonly ttlIntervalMs: number;
  readonly oplogCapacity: number;
  readonly replicaSetName: string;
  readonly transactionLifetimeLimitSeconds: number;
  readonly enableTestCommands: boolean;
  readonly onShutdownCommand: (() => void) | undefined;
}

/** Fills in defaults. */
export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  const cursorIdleTimeoutMs = options.cursorIdleTimeoutMs ?? 10 * 60 * 1000;
  return {
    logger: options.logger ?? quietConsoleLogger,
    cursorIdleTimeoutMs,
    cursorSweepIntervalMs: options.cursorSweepIntervalMs ?? Math.min(60_000, Math.max(10, cursorIdleTimeoutMs)),
    ttlIntervalMs: options.ttlIntervalMs ?? 60_000,
    oplogCapacity: options.oplogCapacity ?? 50_000,
    replicaSetName: options.replicaSetName ?? "svc-rs",
    transactionLifetimeLimitSeconds: options.transactionLifetimeLimitSeconds ?? 60,
    enableTestCommands: options.enableTestCommands ?? process.env["NODE_ENV"] !== "production",
    onShutdownCommand: options.onShutdownCommand,
  };
}
