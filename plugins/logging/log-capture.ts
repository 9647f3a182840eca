import TransportStream from "winston-transport";

/** One captured log entry: level, message and every field the formats added. */
export type CapturedLogLine = Record<string, unknown> & { level: string; message: string };

/**
 * A winston transport that keeps entries in memory — the in-memory adapter for tests that assert
 * what was logged (and that nothing secret was).
 *
 * @example
 * const capture = new LogCapture();
 * const log = createSvcLogger({ level: "debug", disableConsoleLogging: true, transports: [capture] });
 * log.info("hello");
 * capture.lines[0].message; // "hello"
 */
export class LogCapture extends TransportStream {
  readonly lines: CapturedLogLine[] = [];

  override log(info: CapturedLogLine, next: () => void): void {
    // A JSON round trip gives exactly what a JSON transport would write (no symbols, no functions).
    this.lines.push(JSON.parse(JSON.stringify(info)) as CapturedLogLine);
    next();
  }

  /** Every captured line serialised, for "this string appears nowhere" assertions. */
  text(): string {
    return this.lines.map((line) => JSON.stringify(line)).join("\n");
  }

  clear(): void {
    this.lines.length = 0;
  }
}
