import { createSvcLogger, type WinstonSvcLogger } from "./create-logger.js";

/**
 * The framework's global winston logger: console only until `setupLogging` adds files or other
 * transports (so importing the framework never creates files). Every line carries the correlation
 * fields of the active scope, and secret-looking metadata is redacted.
 *
 * @example
 * import { logger } from "svc";
 * logger.info("Server started", { port: 3000 });
 */
export const logger: WinstonSvcLogger = createSvcLogger({ disableFileLogging: true });
