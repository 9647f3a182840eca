import { McpServer, type McpServerFactory } from "@modelcontextprotocol/server";
import { loadDocsLibrary } from "./docs-library.js";
import { svcVersion } from "./docs-location.js";
import { DocsSearch } from "./docs-search.js";
import { registerPrompts } from "./prompts.js";
import { registerDocsTools, type DocsToolContext } from "./register-docs-tools.js";
import { registerDocResources } from "./resources.js";

const INSTRUCTIONS = `svc documentation and code generation. Read svc://docs/overview first; search with svc_search_docs;
generate code with svc_generate_* (tools return text and never write files); check schemas with svc_validate_model_schema.`;

/**
 * Loads the docs folder and builds its search index: done once per process, shared by every
 * server instance the factory makes.
 *
 * @example
 * const context = await loadDocsContext(resolveDocsDir());
 */
export async function loadDocsContext(docsDir: string): Promise<DocsToolContext> {
  const library = await loadDocsLibrary(docsDir);
  return { library, search: new DocsSearch(library) };
}

export interface DocsServerOptions {
  /** The server name reported to clients (`svc-mcp`, `svc-mcp-local`). */
  readonly name: string;
  /** More registrations on each instance (the local server adds its runtime tools here). */
  readonly extend?: (server: McpServer) => void;
}

/**
 * The server factory both executables serve: one `McpServer` with the 5 resources, 11 tools and 8
 * prompts per HTTP request (`createMcpHandler`) or per stdio connection (`serveStdio`). The SDK
 * picks the protocol era; the same definitions serve 2026-07-28 and 2025-era clients.
 *
 * @example
 * const factory = docsServerFactory(await loadDocsContext(dir), { name: "svc-mcp" });
 */
export function docsServerFactory(context: DocsToolContext, options: DocsServerOptions): McpServerFactory {
  const version = svcVersion();
  return () => {
    // The lists never change while the process runs: advertising `listChanged` (the SDK's default)
    // would have 2026 clients hold `subscriptions/listen` streams open that never carry anything.
    const fixed = { listChanged: false };
    const server = new McpServer({ name: options.name, version }, { instructions: INSTRUCTIONS, capabilities: { tools: fixed, resources: fixed, prompts: fixed } });
    registerDocResources(server, context.library);
    registerDocsTools(server, context);
    registerPrompts(server, context.library);
    options.extend?.(server);
    return server;
  };
}
