import type { SvcLogger } from "../../kernel/logger.js";

// Deprecation notices are about the code, not an app: once per process is what a reader needs.
const warned = new Set<string>();

/**
 * Logs a deprecation warning the first time `key` is seen in this process.
 *
 * @example
 * warnDeprecatedOnce(ctx.logger, "modelRouter.transformer", "modelRouter option `transformer` is deprecated: use `responseHandler`");
 */
export function warnDeprecatedOnce(logger: SvcLogger, key: string, message: string): void {
  if (warned.has(key)) return;
  warned.add(key);
  logger.warn(message, { deprecation: key });
}
