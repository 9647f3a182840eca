import type { SvcLogger } from "../../kernel/logger.js";
import { LoggingErrors } from "./errors.js";
import { logger as globalLogger } from "./logger.js";

export interface FeatureFlaggedLoggerOptions {
  /** Checked on every call (so flipping the flag takes effect at once); a throwing check counts as off. */
  isEnabled: () => boolean;
  /** Where enabled lines go (default: the global logger). */
  target?: SvcLogger;
  /** When true, `catch` is gated like the other levels; by default errors are recorded even while disabled. */
  gateCatch?: boolean;
}

/** A logger whose lines are dropped while its flag is off. */
export interface FeatureFlaggedLogger extends SvcLogger {
  /** Records an error (at `error` level) — even while disabled, unless `gateCatch` is set. */
  catch(error: unknown, message?: string, meta?: Record<string, unknown>): void;
  /** The current flag value. */
  readonly enabled: boolean;
}

/**
 * Debug logging that can be switched on per feature without a deploy: `debug`, `info`, `warn`
 * and `error` go to `target` only while `isEnabled()` is true; `catch` still records errors while
 * disabled unless `gateCatch` is true.
 *
 * @example
 * const flagLog = createFeatureFlaggedLogger({ isEnabled: () => flags.isOn("debug-checkout"), target: ctx.logger });
 * flagLog.debug("Evaluated flag", { key, bucket });
 * try { ... } catch (error) { flagLog.catch(error, "Flag evaluation failed"); }
 */
export function createFeatureFlaggedLogger(options: FeatureFlaggedLoggerOptions): FeatureFlaggedLogger {
  if (typeof options?.isEnabled !== "function") throw LoggingErrors.INVALID_FEATURE_FLAG_CHECK();
  const target = options.target ?? globalLogger;
  const enabled = (): boolean => {
    try {
      return options.isEnabled() === true;
    } catch {
      return false;
    }
  };
  const gated =
    (level: "debug" | "info" | "warn" | "error") =>
    (message: string, meta?: Record<string, unknown>): void => {
      if (enabled()) target[level](message, meta);
    };
  return {
    debug: gated("debug"),
    info: gated("info"),
    warn: gated("warn"),
    error: gated("error"),
    catch(error, message, meta) {
      if (options.gateCatch && !enabled()) return;
      const described = error instanceof Error ? error : new Error(String(error));
      target.error(message ?? described.message, {
        ...meta,
        error: { name: described.name, message: described.message },
        stack: described.stack,
      });
    },
    get enabled() {
      return enabled();
    },
  };
}
