import type { ErrorTracker } from "../../contracts/error-tracker.js";
import { createNoopErrorTracker } from "../../adapters/error-tracker/noop.js";
import { loadConfig } from "../../kernel/config.js";
import type { Environment } from "../../kernel/environment.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { createErrorTrackerFromConfig } from "../logging/index.js";

/**
 * The error tracker a script or cron job reports to when none is passed: the one the environment
 * configures (`USE_ERRORTRACKER_LOGGING`, `ERRORTRACKER_DSN`), or a no-op if the environment is
 * invalid (that problem is logged; the script still runs).
 */
export function errorTrackerFromEnvironment(env: Environment, logger: SvcLogger): ErrorTracker {
  try {
    return createErrorTrackerFromConfig(loadConfig(env));
  } catch (error) {
    logger.error("Error tracking is off: the environment is invalid", { error: error instanceof Error ? error.message : String(error) });
    return createNoopErrorTracker();
  }
}
