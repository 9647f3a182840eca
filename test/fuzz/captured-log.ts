// The app's log, kept in memory instead of printed: a failure message then shows the server's
// own lines (message and stack) for the request that failed, found by its request id.
import type { SvcLogger } from "../../kernel/logger.js";

export interface LogEntry {
  readonly level: "debug" | "info" | "warn" | "error";
  readonly message: string;
  readonly meta?: Record<string, unknown>;
}

/** A logger that keeps its last entries, and looks them up by request id. */
export interface CapturedLog extends SvcLogger {
  /** The entries at `warn` or `error` that carry this request id, formatted with their stacks. */
  linesFor(requestId: string | undefined): string[];
  /** Whether an `error` entry carries this request id. */
  hasErrorFor(requestId: string | undefined): boolean;
}

const KEPT = 2_000;

/**
 * A logger to give the app under test (`SvcAppOptions.logger`).
 *
 * @example
 * const log = capturedLog();
 * const app = await createTestApp({ logger: log });
 */
export function capturedLog(): CapturedLog {
  const entries: LogEntry[] = [];
  const keep = (level: LogEntry["level"]) => (message: string, meta?: Record<string, unknown>) => {
    entries.push({ level, message, meta });
    if (entries.length > KEPT) entries.splice(0, entries.length - KEPT);
  };
  return {
    debug: keep("debug"),
    info: keep("info"),
    warn: keep("warn"),
    error: keep("error"),
    hasErrorFor(requestId) {
      return requestId !== undefined && entries.some((entry) => entry.level === "error" && entry.meta?.requestId === requestId);
    },
    linesFor(requestId) {
      if (!requestId) return [];
      return entries
        .filter((entry) => (entry.level === "warn" || entry.level === "error") && entry.meta?.requestId === requestId)
        .map((entry) => {
          const stack = typeof entry.meta?.stack === "string" ? `\n${entry.meta.stack.replace(/^/gm, "      ")}` : "";
          return `${entry.level}: ${entry.message}${stack}`;
        });
    },
  };
}
