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
import { parseArgs } from "node:util";
import { serveStdio, type StdioServerHandle } from "@modelcontextprotocol/server/stdio";
import { loadDocsContext, docsServerFactory } from "./mcp/docs-server.js";
import { resolveDocsDir } from "./mcp/docs-location.js";
import { invokedDirectly } from "./invoked-directly.js";
import { registerRuntimeTools } from "./mcp/runtime/index.js";

const USAGE = `usage: svc-mcp-local [--help]

Speaks MCP on stdin/stdout for the project in the current directory (normally started by the
MCP client). It takes no other argument: it is configured by the environment.

  SVC_MCP_DOCS_DIR         the markdown folder it serves (default: the package's docs/)
  SVC_MCP_EVAL             1 or true enables the evaluate tool
  NODE_ENV                 production refuses evaluate whatever SVC_MCP_EVAL says
  DB_URI or DB_CONNECTION  the database database_schema and database_query read
                           (default: the running dev server's embedded engine)
  SVC_LOG_DIR              where read_logs and last_error find the logs
                           (default: the running dev server's log directory, else logs/)
  SVC_MCP_CDP_URL          DevTools endpoint of a running browser navigate connects to
  SVC_MCP_CHROMIUM         the Chromium navigate launches when SVC_MCP_CDP_URL is unset
                           (default /usr/lib/chromium/chromium)`;

/** Serves stdio until the client closes stdin. Exported for tests and embedding. */
export async function runSvcMcpLocal(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Promise<StdioServerHandle> {
  const context = await loadDocsContext(resolveDocsDir(env));
  const factory = docsServerFactory(context, {
    name: "svc-mcp-local",
    extend: (server) => registerRuntimeTools(server, { cwd, env }),
  });
  return serveStdio(factory, { onerror: (error) => console.error(`svc-mcp-local: ${error.message}`) });
}

/**
 * `--help` prints the usage (on stdout: no client is listening then); any other argument is
 * refused rather than ignored.
 */
function readCommandLine(argv: string[]): void {
  let help: boolean | undefined;
  try {
    help = parseArgs({ args: argv, options: { help: { type: "boolean", short: "h" } }, strict: true }).values.help;
  } catch (error) {
    console.error(`svc-mcp-local: ${(error as Error).message}\n${USAGE}`);
    process.exit(1);
  }
  if (help) {
    console.log(USAGE);
    process.exit(0);
  }
}

if (invokedDirectly(import.meta.url)) {
  readCommandLine(process.argv.slice(2));
  runSvcMcpLocal().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
