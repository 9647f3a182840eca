/**
 * What the engine logs through: protocol errors (a client sent garbage), TTL sweeps, validation
 * warnings. `console` satisfies it; so does a winston logger.
 *
 * @example
 * startEmbeddedMongo({logger: {error: console.error, warn: console.warn, info() {}, debug() {}}});
 */
export interface EngineLogger {
  error(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  debug(message: string, ...details: unknown[]): void;
}

/**
 * The default logger: errors and warnings to the console, info and debug dropped (a test suite
 * starting an engine per file should not print a line per file).
 *
 * @example
 * createEngine({logger: quietConsoleLogger});
 */
export const quietConsoleLogger: EngineLogger = {
  error: (message, ...details) => console.error(message, ...details),
  warn: (message, ...details) => console.warn(message, ...details),
  info: () => {},
  debug: () => {},
};
