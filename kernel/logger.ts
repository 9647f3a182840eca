import { token } from "./container.js";

/**
 * The logging surface the kernel and plugins write to. The logging plugin binds `LOGGER` to the
 * framework's winston logger; anything with these four methods (console included) fits.
 *
 * @example
 * ctx.logger.info("Feature flags loaded", { count: 12 });
 */
export interface SvcLogger {
  debug(message: string, meta?: Record<string, unknown>): void;
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

export const LOGGER = token<SvcLogger>("kernel.Logger");
