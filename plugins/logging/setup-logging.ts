import { loggerSettings, type SetupLoggingOptions } from "./create-logger.js";
import { logger } from "./logger.js";

/**
 * Configures the global `logger` once, early in `main`: level, console colours, log files under
 * `logDirectory` (default `logs/`, rotated at 10 MB × 5) and extra transports. Console and file
 * logging are on by default; file logging is off by default when `NODE_ENV=test`. Calling it again
 * replaces the previous settings.
 *
 * @example
 * setupLogging({ level: "debug", disableConsoleColors: true });
 * setupLogging({ transports: [new winston.transports.Http({ host: "logs.example.com" })] });
 */
export function setupLogging(options: SetupLoggingOptions = {}): typeof logger {
  logger.configure(loggerSettings(options));
  return logger;
}
