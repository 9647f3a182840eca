import path from "node:path";
import winston from "winston";
import type TransportStream from "winston-transport";
import type { SvcLogger } from "../../kernel/logger.js";
import { consoleColorsEnabled } from "./console-colors.js";
import { correlationFormat, redactionFormat, textLineFormat } from "./log-formats.js";

/** Options of `setupLogging` and `createSvcLogger`. */
export interface SetupLoggingOptions {
  /** Lowest level written (`error`, `warn`, `info`, `http`, `verbose`, `debug`, `silly`). Default `info` (`warn` when `NODE_ENV=test`). */
  level?: string;
  /** No `logs/*.log` files. Default: off in tests (`NODE_ENV=test`), on otherwise. */
  disableFileLogging?: boolean;
  /**
   * `true`: plain console text; `false`: ANSI colours even when piped. Unset (the default):
   * colours only on a terminal, never with `NO_COLOR`, always with `FORCE_COLOR`.
   */
  disableConsoleColors?: boolean;
  /** Drop the console transport (the file and extra transports stay). */
  disableConsoleLogging?: boolean;
  /** Extra winston transports (log shippers, test captures); they get the same structured entries. */
  transports?: TransportStream[];
  /** Directory of the log files, default `logs` (relative to the working directory; gitignored). */
  logDirectory?: string;
  /** Console line shape: `json` (default in production) or `text` (human-readable, default elsewhere). */
  consoleFormat?: "json" | "text";
  /** Environment to read `NODE_ENV`, `NO_COLOR` and `FORCE_COLOR` from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** A winston logger that also satisfies the kernel's `SvcLogger` surface. */
export type WinstonSvcLogger = winston.Logger & SvcLogger;

/** What the console transport writes to; a parameter so tests decide it rather than the runner's stdout. */
export interface ConsoleTarget {
  readonly isTTY: boolean | undefined;
}

/**
 * Resolved winston settings for `SetupLoggingOptions`; shared by `createSvcLogger` and `setupLogging`.
 *
 * @example
 * winston.createLogger(loggerSettings({ level: "debug" }));
 */
export function loggerSettings(options: SetupLoggingOptions = {}, consoleTarget: ConsoleTarget = process.stdout): winston.LoggerOptions {
  const env = options.env ?? process.env;
  const isTest = env.NODE_ENV === "test";
  const isProduction = env.NODE_ENV === "production";
  const transports: TransportStream[] = [];
  if (!options.disableConsoleLogging) {
    const shape = options.consoleFormat ?? (isProduction ? "json" : "text");
    const colors = consoleColorsEnabled({ disableConsoleColors: options.disableConsoleColors, env, isTTY: consoleTarget.isTTY });
    transports.push(
      new winston.transports.Console({
        format:
          shape === "json"
            ? winston.format.json()
            : colors
              ? winston.format.combine(winston.format.colorize(), textLineFormat)
              : textLineFormat,
      }),
    );
  }
  if (!(options.disableFileLogging ?? isTest)) {
    const directory = options.logDirectory ?? "logs";
    // winston rotates by size on its own; five 10 MB files bound the disk use.
    const file = { maxsize: 10 * 1024 * 1024, maxFiles: 5, tailable: true, format: winston.format.json() };
    transports.push(
      new winston.transports.File({ ...file, filename: path.join(directory, "error.log"), level: "error" }),
      new winston.transports.File({ ...file, filename: path.join(directory, "combined.log") }),
    );
  }
  transports.push(...(options.transports ?? []));
  return {
    level: options.level ?? (isTest ? "warn" : "info"),
    format: winston.format.combine(
      winston.format.errors({ stack: true }),
      correlationFormat(),
      redactionFormat(),
      winston.format.timestamp(),
    ),
    transports,
  };
}

/**
 * A new winston logger with the framework's formats (correlation fields, secret redaction,
 * timestamps) — for a component that needs its own transports, or a test that captures lines.
 * Most code uses the global `logger` instead.
 *
 * @example
 * const capture = new LogCapture();
 * const log = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
 */
export function createSvcLogger(options: SetupLoggingOptions = {}): WinstonSvcLogger {
  return winston.createLogger(loggerSettings(options)) as WinstonSvcLogger;
}
