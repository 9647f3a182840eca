import { CronJob } from "cron";
import { ERROR_TRACKER, type ErrorTracker } from "../../contracts/error-tracker.js";
import type { Environment } from "../../kernel/environment.js";
import type { SvcLogger } from "../../kernel/logger.js";
import type { PluginContext } from "../../kernel/plugin.js";
import { runWithRequestContext } from "../../kernel/request-context.js";
import { logger as defaultLogger } from "../logging/index.js";
import { claimCronRun } from "./cron-claims.js";
import { cronExpressionProblem } from "./cron-expression.js";
import { errorTrackerFromEnvironment } from "./default-error-tracker.js";
import { ScriptErrors } from "./errors.js";

const MINUTE_MS = 60_000;

export interface CronjobOptions {
  /** Names the job in logs (`jobId`) and error reports. Default: the expression. */
  name?: string;
  /** Also run once right away. Default false. */
  runOnInit?: boolean;
  /** IANA time zone the expression is read in (default: the server's). */
  timezone?: string;
  /** Start the schedule now. Default true. */
  start?: boolean;
  /**
   * For an app run as several processes on one database (instances behind a load balancer):
   * each scheduled run happens in one process only — the first to claim it in the database
   * (collection `svc_cron_runs`, one record per job and due time, kept 30 days); the others skip
   * it (logged at debug). Needs a `name` the same in every process, and the app's database
   * (mongoose's default connection). `trigger()` and `runOnInit` still run where they are asked.
   * When the claim cannot be written (database down), the run is skipped, logged and reported.
   * Default false: every process runs every scheduled run.
   */
  exclusive?: boolean;
  /**
   * Inside an app pass the plugin's `ctx`: the job then logs to `ctx.logger`, reports to the app's
   * `ERROR_TRACKER` (an `app.override` included) and reads `ctx.config.env`. `logger`,
   * `errorTracker` and `env`, when given, still win.
   */
  context?: PluginContext;
  /** Where runs, skips and failures are logged. Default: `context.logger`, else the global `logger`. */
  logger?: SvcLogger;
  /**
   * Where failures are reported. Default: the app's `ERROR_TRACKER` with `context`, else the
   * tracker the environment configures (Sentry or none), closed when the job stops.
   */
  errorTracker?: ErrorTracker;
  /** Where the error-tracker variables are read (default `context.config.env`, else `process.env`). */
  env?: Environment;
}

/** A scheduled job. */
export interface CronjobHandle {
  readonly name: string;
  /** True while a run is in progress. */
  readonly running: boolean;
  /**
   * Runs the job now (skipped and logged, like a scheduled run, if one is still in progress). After
   * `stop()` it runs nothing: it logs a warning and resolves.
   */
  trigger(): Promise<void>;
  /** When the next scheduled run is due, or undefined once stopped. */
  nextRun(): Date | undefined;
  /** Stops the schedule and waits for a run in progress to finish. */
  stop(): Promise<void>;
}

/**
 * Runs `fn` on a five-field cron schedule (minute hour day-of-month month day-of-week) with the
 * `cron` package. The expression is validated at registration (`SCRIPTS_INVALID_CRON_EXPRESSION`,
 * also for six-field expressions with seconds and for ones no date matches, such as February
 * 31st); a run that starts while the previous one is still going is skipped and logged; errors
 * are logged and reported, and never stop the schedule.
 *
 * @example
 * // in a plugin's start(ctx): logs to the app's logger, failures go to the app's ERROR_TRACKER
 * const job = cronjob("0 3 * * *", () => purgeExpiredSessions(), { name: "purge-sessions", timezone: "Europe/Berlin", context: ctx });
 * // on shutdown
 * await job.stop();
 */
export function cronjob(expression: string, fn: () => unknown, options: CronjobOptions = {}): CronjobHandle {
  if (options.timezone !== undefined && !isTimeZone(options.timezone)) throw ScriptErrors.INVALID_TIMEZONE(options.timezone);
  const problem = cronExpressionProblem(expression, options.timezone);
  if (problem !== undefined) throw ScriptErrors.INVALID_CRON_EXPRESSION(expression, problem);

  // Two jobs with one expression would share their claims: an exclusive job names itself.
  if (options.exclusive && !options.name?.trim()) throw ScriptErrors.EXCLUSIVE_NAME_REQUIRED(expression);
  const name = options.name ?? expression.trim();
  const { context } = options;
  const logger = options.logger ?? context?.logger ?? defaultLogger;
  const given = options.errorTracker ?? context?.container.tryResolve(ERROR_TRACKER);
  // A tracker the job makes for itself is its own to close; one it was given belongs to the caller.
  const tracker = given ?? errorTrackerFromEnvironment(options.env ?? context?.config.env ?? process.env, logger);
  let current: Promise<void> | undefined;
  let stopped = false;

  const run = (): Promise<void> => {
    if (stopped) {
      // Not an error: a caller racing the app's shutdown should not fail because of it.
      logger.warn(`Cron job ${name} is stopped; this run is skipped`, { jobId: name, cron: expression });
      return Promise.resolve();
    }
    if (current) {
      logger.warn(`Cron job ${name} is still running; this run is skipped`, { jobId: name, cron: expression });
      return current;
    }
    current = runWithRequestContext({ jobId: name }, async () => {
      try {
        await fn();
      } catch (error) {
        logger.error(`Cron job ${name} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, {
          cron: expression,
          stack: error instanceof Error ? error.stack : undefined,
        });
        tracker.captureException(error, { jobId: name, tags: { cron: expression } });
      }
    }).finally(() => {
      current = undefined;
    });
    return current;
  };

  /** A scheduled run of an exclusive job: only in the process whose claim on it was stored. */
  const runClaimed = async (): Promise<void> => {
    // Runs are due on whole minutes: every process names a run by the minute it fired in, on
    // its own clock (rounded, so a timer a little early or late still names its minute).
    const scheduledFor = new Date(Math.round(Date.now() / MINUTE_MS) * MINUTE_MS);
    const due = { jobId: name, cron: expression, scheduledFor: scheduledFor.toISOString() };
    let claimed: boolean;
    try {
      claimed = await claimCronRun(name, scheduledFor);
    } catch (error) {
      logger.error(`Cron job ${name}: the run due ${due.scheduledFor} could not be claimed and is skipped: ${error instanceof Error ? error.message : String(error)}`, due);
      tracker.captureException(error, { jobId: name, tags: { cron: expression } });
      return;
    }
    if (!claimed) {
      logger.debug(`Cron job ${name}: the run due ${due.scheduledFor} runs in another process`, due);
      return;
    }
    await run();
  };

  const job = CronJob.from({
    cronTime: expression.trim(),
    onTick: () => {
      void (options.exclusive ? runClaimed() : run());
    },
    start: options.start ?? true,
    timeZone: options.timezone,
    runOnInit: options.runOnInit ?? false,
    name,
  });

  return {
    name,
    get running() {
      return current !== undefined;
    },
    trigger: run,
    nextRun: () => (stopped ? undefined : job.nextDate().toJSDate()),
    async stop() {
      stopped = true;
      await job.stop();
      await current;
      if (!given) await tracker.close(2000);
    },
  };
}

function isTimeZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}
