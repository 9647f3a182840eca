#!/usr/bin/env node
/**
 * `svc-mcp-local`: the svc MCP server over stdio, for the project in the current directory —
 * everything `svc-mcp` serves (documentation resources, tools, prompts) plus the runtime tools
 * (`application_info`, `database_schema`, `database_query`, `read_logs`, `last_error`,
 * `get_rtk_state`, `evaluate`, `navigate`). The era (2026-07-28 or 2025) is negotiated per
 * connection and one server instance is pinned to it. Logs go to stderr: stdout is the protocol.
 *
 * Environment: `SVC_MCP_DOCS_DIR` (default: the package's docs), `SVC_MCP_EVAL=1` enables
 * `evaluate` (never in production), `DB_URI` for `database_*`.
 *
 * @example
 * claude mcp add svc-local -- npx svc-mcp-local
 */
import { serveStdio, type StdioServerHandle } from "@modelcontextprotocol/server/stdio";
import { loadDocsContext, docsServerFactory } from "./mcp/docs-server.js";
import { resolveDocsDir } from "./mcp/docs-location.js";
import { invokedDirectly } from "./invoked-directly.js";
import { registerRuntimeTools } from "./mcp/runtime/index.js";

/** Serves stdio until the client closes stdin. Exported for tests and embedding. */
export async function runSvcMcpLocal(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Promise<StdioServerHandle> {
  const context = await loadDocsContext(resolveDocsDir(env));
  const factory = docsServerFactory(context, {
    name: "svc-mcp-local",
    extend: (server) => registerRuntimeTools(server, { cwd, env }),
  });
  return serveStdio(factory, { onerror: (error) => console.error(`svc-mcp-local: ${error.message}`) });
}

if (invokedDirectly(import.meta.url)) {
  runSvcMcpLocal().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
