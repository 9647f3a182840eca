#!/usr/bin/env node
/**
 * `svc-mcp`: the svc documentation MCP server over HTTP — 5 documentation resources, 11
 * search and code-generation tools, 8 workflow prompts — at `http://<host>:<PORT>/mcp`.
 * Stateless 2026-07-28 revision with the SDK's fallback for 2025-era clients.
 *
 * Environment: `PORT` (default 8080), `MCP_HOST` or `HOST` (default 0.0.0.0),
 * `SVC_MCP_DOCS_DIR` (default: the package's docs), `SVC_MCP_ALLOWED_HOSTS` (comma-separated
 * host names clients may use besides localhost and this machine's name).
 *
 * @example
 * PORT=8080 npx svc-mcp
 * claude mcp add --transport http svc http://localhost:8080/mcp
 */
import { parseArgs } from "node:util";
import { loadDocsContext, docsServerFactory } from "./mcp/docs-server.js";
import { resolveDocsDir } from "./mcp/docs-location.js";
import { McpDocsErrors } from "./mcp/errors.js";
import { startDocsHttpServer, type RunningDocsHttpServer } from "./mcp/http-server.js";
import { exitOnSignals } from "./exit-on-signals.js";
import { invokedDirectly } from "./invoked-directly.js";

const USAGE = `usage: svc-mcp [--help]

Serves the svc documentation over MCP at http://<host>:<PORT>/mcp. It takes no other argument:
it is configured by the environment.

  PORT                   port (default 8080; 0 picks a free one)
  MCP_HOST or HOST       interface it binds (default 0.0.0.0)
  SVC_MCP_ALLOWED_HOSTS  comma-separated host names clients may use in Host/Origin, besides
                         localhost, 127.0.0.1, [::1], this machine's name and MCP_HOST
  SVC_MCP_DOCS_DIR       the markdown folder it serves (default: the package's docs/)`;

/** SPEC §8: the MCP server's default port. */
export const DEFAULT_MCP_PORT = 8080;

/** Starts `svc-mcp` from environment variables. Exported for tests and embedding. */
export async function runSvcMcp(env: NodeJS.ProcessEnv = process.env): Promise<RunningDocsHttpServer> {
  const rawPort = env.PORT?.trim() || String(DEFAULT_MCP_PORT);
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535) throw McpDocsErrors.INVALID_PORT(rawPort);
  const host = env.MCP_HOST?.trim() || env.HOST?.trim() || "0.0.0.0";
  const context = await loadDocsContext(resolveDocsDir(env));
  return startDocsHttpServer({
    factory: docsServerFactory(context, { name: "svc-mcp" }),
    port,
    host,
    allowedHosts: (env.SVC_MCP_ALLOWED_HOSTS ?? "").split(","),
    onerror: (error) => console.error(`svc-mcp: ${error.message}`),
  });
}

/**
 * `--help` prints the usage; any other argument is refused, so `svc-mcp --port 9000` cannot
 * silently serve on 0.0.0.0:8080 instead.
 */
function readCommandLine(argv: string[]): void {
  let help: boolean | undefined;
  try {
    help = parseArgs({ args: argv, options: { help: { type: "boolean", short: "h" } }, strict: true }).values.help;
  } catch (error) {
    console.error(`svc-mcp: ${(error as Error).message}\n${USAGE}`);
    process.exit(1);
  }
  if (help) {
    console.log(USAGE);
    process.exit(0);
  }
}

if (invokedDirectly(import.meta.url)) {
  readCommandLine(process.argv.slice(2));
  runSvcMcp().then(
    (running) => {
      console.log(`svc-mcp listening on ${running.url}`);
      exitOnSignals(() => running.close());
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
