// svc-mcp-local's runtime tools (SPEC §4.7) and the development-only channel they read.
import type { McpServer } from "@modelcontextprotocol/server";
import { registerApplicationInfoTool } from "./application-info-tool.js";
import { registerDatabaseQueryTool } from "./database-query-tool.js";
import { registerDatabaseSchemaTool } from "./database-schema-tool.js";
import { registerEvaluateTool } from "./evaluate-tool.js";
import { registerLogTools } from "./log-tools.js";
import { registerNavigateTool } from "./navigate-tool.js";
import { registerRtkStateTool } from "./rtk-state-tool.js";
import type { RuntimeToolOptions } from "./tool-result.js";

export { devRuntime, type DevRuntimeOptions, type DevRuntimePlugin } from "./dev-runtime-plugin.js";
export { DEV_ROUTES_PATH, DEV_SERVER_FILE, findDevServer, type DevServerAnnouncement } from "./dev-server-file.js";
export { RuntimeToolErrors } from "./runtime-errors.js";
export type { RuntimeToolOptions } from "./tool-result.js";

/** The names `registerRuntimeTools` registers, in order. */
export const RUNTIME_TOOL_NAMES = [
  "application_info",
  "database_schema",
  "database_query",
  "read_logs",
  "last_error",
  "get_rtk_state",
  "evaluate",
  "navigate",
] as const;

/**
 * Registers the eight runtime tools on an MCP server, for the project in `options.cwd`. They read
 * the running development server (`.svc/dev-server.json`, written by `devRuntime()`), its
 * database (`DB_URI` wins), its log files, and drive its inspector and a browser; each answers a
 * tool error naming what to start when its source is missing.
 *
 * @example
 * const server = new McpServer({ name: "svc-mcp-local", version: "1.0.0" });
 * registerRuntimeTools(server, { cwd: process.cwd(), env: process.env });
 * await serveStdio(() => server);
 */
export function registerRuntimeTools(server: McpServer, options: RuntimeToolOptions): void {
  const resolved: RuntimeToolOptions = { cwd: options.cwd, env: options.env };
  registerApplicationInfoTool(server, resolved);
  registerDatabaseSchemaTool(server, resolved);
  registerDatabaseQueryTool(server, resolved);
  registerLogTools(server, resolved);
  registerRtkStateTool(server, resolved);
  registerEvaluateTool(server, resolved);
  registerNavigateTool(server, resolved);
}
