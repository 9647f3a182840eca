import { fromJsonSchema, type McpServer } from "@modelcontextprotocol/server";
import { findLogFile, LOG_LEVELS, tailLog, type LogLevel } from "./log-files.js";
import { toolAnswer, type RuntimeToolOptions } from "./tool-result.js";

interface ReadLogsArgs {
  lines?: number;
  level?: LogLevel;
  contains?: string;
  file?: "combined" | "error";
}

/**
 * `read_logs` (the last lines of the app's log, filtered by level and text) and `last_error`
 * (the most recent error entries, with their stacks).
 *
 * @example
 * registerLogTools(server, { cwd: process.cwd(), env: process.env });
 */
export function registerLogTools(server: McpServer, options: RuntimeToolOptions): void {
  server.registerTool(
    "read_logs",
    {
      description:
        "Read the last entries of the app's log file (logs/combined.log, written by setupLogging(); SVC_LOG_DIR overrides the directory), " +
        "optionally only a level and more severe, or entries containing a text.",
      inputSchema: fromJsonSchema<ReadLogsArgs>({
        type: "object",
        properties: {
          lines: { type: "integer", minimum: 1, maximum: 1000, description: "Most entries returned, newest last (default 100)." },
          level: { enum: [...LOG_LEVELS], description: "Only entries at this level or more severe (error is the most severe)." },
          contains: { type: "string", minLength: 1, maxLength: 200, description: "Only entries whose line contains this text (case-insensitive)." },
          file: { enum: ["combined", "error"], description: "combined (default: every level) or error (errors only)." },
        },
        additionalProperties: false,
      }),
      annotations: { readOnlyHint: true },
    },
    (args) =>
      toolAnswer(async () => {
        const file = await findLogFile(options, args.file ?? "combined");
        const ceiling = args.level === undefined ? LOG_LEVELS.length : LOG_LEVELS.indexOf(args.level);
        const needle = args.contains?.toLowerCase();
        const entries = await tailLog(file, args.lines ?? 100, (entry, line) => {
          const rank = LOG_LEVELS.indexOf(entry.level as LogLevel);
          if (args.level !== undefined && (rank === -1 || rank > ceiling)) return false;
          return needle === undefined || line.toLowerCase().includes(needle);
        });
        return { file, returned: entries.length, entries };
      }),
  );

  server.registerTool(
    "last_error",
    {
      description: "The most recent error entries of the app's log (logs/error.log), with message, stack, request id and time.",
      inputSchema: fromJsonSchema<{ count?: number }>({
        type: "object",
        properties: { count: { type: "integer", minimum: 1, maximum: 20, description: "How many of the latest errors (default 1)." } },
        additionalProperties: false,
      }),
      annotations: { readOnlyHint: true },
    },
    (args) =>
      toolAnswer(async () => {
        const file = await findLogFile(options, "error");
        const errors = await tailLog(file, args.count ?? 1, (entry) => entry.level === "error");
        if (errors.length === 0) return `No error logged in ${file}.`;
        return { file, errors };
      }),
  );
}
