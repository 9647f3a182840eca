import { open, stat } from "node:fs/promises";
import path from "node:path";
import { findDevServer } from "./dev-server-file.js";
import { RuntimeToolErrors } from "./runtime-errors.js";
import type { RuntimeToolOptions } from "./tool-result.js";

/** How much of a log file's end is read: enough for 1000 long lines, never the whole of a 10 MB file. */
const TAIL_BYTES = 4 * 1024 * 1024;

/** Winston's levels, most severe first. */
export const LOG_LEVELS = ["error", "warn", "info", "http", "verbose", "debug", "silly"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A log line: winston's JSON entry, or `{message}` for a line that is not JSON. */
export type LogEntry = Record<string, unknown>;

/**
 * The app's log file: in `SVC_LOG_DIR` when set (relative to the project), else where the running
 * development server's file transports write, else `logs/` (`setupLogging`'s default directory).
 *
 * @example
 * await findLogFile({ cwd, env: process.env }, "error"); // "/work/app/logs/error.log"
 */
export async function findLogFile(options: RuntimeToolOptions, which: "combined" | "error"): Promise<string> {
  const fileName = `${which}.log`;
  const configured = options.env.SVC_LOG_DIR?.trim();
  if (configured) return path.resolve(options.cwd, configured, fileName);
  const announced = (await findDevServer(options.cwd))?.logFiles?.[which];
  return announced ?? path.join(options.cwd, "logs", fileName);
}

/**
 * The last entries of a log file, oldest first, keeping those `keep` accepts (reads only the
 * file's last 4 MB). Throws `MCP_RUNTIME_NO_LOG_FILE` when the file does not exist.
 *
 * @example
 * const errors = await tailLog("/app/logs/combined.log", 10, (entry) => entry.level === "error");
 */
export async function tailLog(file: string, count: number, keep: (entry: LogEntry, line: string) => boolean = () => true): Promise<LogEntry[]> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    throw RuntimeToolErrors.NO_LOG_FILE(file);
  }
  const start = Math.max(0, size - TAIL_BYTES);
  const handle = await open(file, "r");
  let text: string;
  try {
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    text = buffer.toString("utf8");
  } finally {
    await handle.close();
  }
  const lines = text.split("\n");
  // Reading from the middle of the file starts mid-line: that piece is not an entry.
  if (start > 0) lines.shift();
  const entries: LogEntry[] = [];
  for (let index = lines.length - 1; index >= 0 && entries.length < count; index--) {
    const line = lines[index]!.trim();
    if (!line) continue;
    const entry = parseLine(line);
    if (keep(entry, line)) entries.push(entry);
  }
  return entries.reverse();
}

function parseLine(line: string): LogEntry {
  try {
    const parsed = JSON.parse(line) as unknown;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as LogEntry;
  } catch {
    // Not JSON: another writer's line, kept as text.
  }
  return { message: line };
}
