import path from "node:path";
import mongoose from "mongoose";
import type { ErrorTracker } from "../../contracts/error-tracker.js";
import type { Environment } from "../../kernel/environment.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { runWithRequestContext } from "../../kernel/request-context.js";
import { logger as defaultLogger } from "../logging/index.js";
import { errorTrackerFromEnvironment } from "./default-error-tracker.js";

export interface WrapScriptOptions {
  /** Names the run in logs (`jobId`) and error reports. Default: the script's file name. */
  name?: string;
  /**
   * Where the run is logged. Default: the logging plugin's global `logger`; pass the app's logger
   * when the script built an `SvcApp` (`app.kernel.pluginContext.logger`) or a logger of your own.
   */
  logger?: SvcLogger;
  /** Where failures are reported. Default: the tracker the environment configures (Sentry or none). */
  errorTracker?: ErrorTracker;
  /**
   * Closes the database before exiting. Default: disconnect mongoose if it is connected. Pass
   * `() => app.stop()` when the script built an `SvcApp`.
   */
  closeDatabase?: () => Promise<void>;
  /** How the process ends. Default `process.exit`. */
  exit?: (code: number) => void;
  /** Where the error-tracker variables are read (default `process.env`). */
  env?: Environment;
}

/**
 * Runs a one-off script: logs start and end (every line carries `jobId`), logs and reports an
 * exception to the error tracker, closes the database, flushes the tracker, then exits with 0 on
 * success and 1 on failure — so a scheduler sees the outcome and no open handle keeps the process
 * alive.
 *
 * @example
 * // scripts/backfill-slugs.ts
 * await wrapScript(async () => {
 *   await mongoose.connect(process.env.DB_URI!);
 *   for await (const post of Post.find({ slug: null })) await post.save();
 * });
 */
export async function wrapScript(fn: () => unknown, options: WrapScriptOptions = {}): Promise<void> {
  const logger = options.logger ?? defaultLogger;
  const name = options.name ?? (process.argv[1] ? path.basename(process.argv[1]).replace(/\.[cm]?[jt]s$/, "") : "script");
  const tracker = options.errorTracker ?? errorTrackerFromEnvironment(options.env ?? process.env, logger);
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let code = 0;
  await runWithRequestContext({ jobId: name }, async () => {
    logger.info(`Script ${name} started`);
    try {
      await fn();
      logger.info(`Script ${name} finished`);
    } catch (error) {
      code = 1;
      logger.error(`Script ${name} failed: ${describe(error)}`, { stack: error instanceof Error ? error.stack : undefined });
      tracker.captureException(error, { jobId: name, tags: { script: name } });
    }
    try {
      await (options.closeDatabase ?? disconnectMongoose)();
    } catch (error) {
      logger.error(`Script ${name}: closing the database failed: ${describe(error)}`);
      code = 1;
    }
    // Reports are sent asynchronously: wait (bounded) so exiting does not drop them.
    await tracker.flush(2000).catch(() => false);
    if (!options.errorTracker) await tracker.close(500).catch(() => false);
  });
  exit(code);
}

async function disconnectMongoose(): Promise<void> {
  if (mongoose.connection.readyState !== mongoose.ConnectionStates.disconnected) await mongoose.disconnect();
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
