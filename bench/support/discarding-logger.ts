/**
 * A logger for benchmarks: the framework's formats at `info`, written to a transport that drops
 * every line, so logging costs the same on both sides of a comparison without terminal or disk I/O.
 *
 * @example
 * const logger = discardingLogger();
 */
import TransportStream from "winston-transport";
import { createSvcLogger, type WinstonSvcLogger } from "../../plugins/logging/create-logger.js";

class DiscardTransport extends TransportStream {
  override log(_info: unknown, next: () => void): void {
    next();
  }
}

export function discardingLogger(): WinstonSvcLogger {
  return createSvcLogger({ level: "info", disableConsoleLogging: true, disableFileLogging: true, transports: [new DiscardTransport()] });
}
