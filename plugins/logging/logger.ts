import winston from "winston";
import type { SvcLogger } from "../../kernel/logger.js";

/**
 * The framework's global winston logger. `setupLogging` (plugins/logging) reconfigures its level
 * and transports; everything else just imports and uses it.
 *
 * @example
 * import { logger } from "svc";
 * logger.info("Server started", { port: 3000 });
 */
export const logger: winston.Logger & SvcLogger = winston.createLogger({
  level: process.env.NODE_ENV === "test" ? "warn" : "info",
  format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
  transports: [new winston.transports.Console()],
});
