import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { hostHeaderValidation, originValidation, toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, localhostAllowedHostnames, type McpServerFactory } from "@modelcontextprotocol/server";

/** Where `svc-mcp` answers MCP requests. */
export const MCP_PATH = "/mcp";

export interface DocsHttpServerOptions {
  readonly factory: McpServerFactory;
  /** TCP port (0 picks a free one). */
  readonly port: number;
  /** Interface to bind (`0.0.0.0` for every interface). */
  readonly host: string;
  /** More `Host`/`Origin` hostnames to accept besides localhost, this machine's name and `host`. */
  readonly allowedHosts?: readonly string[];
  readonly onerror?: (error: Error) => void;
}

export interface RunningDocsHttpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

const WILDCARD = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * The hostnames `Host` and `Origin` may name: localhost forms, this machine's name, the bound
 * interface (unless it is a wildcard) and the configured extras. Anything else is refused with
 * 403 before the MCP handler sees the request: the SDK's DNS-rebinding guard.
 *
 * @example
 * allowedHostnames("0.0.0.0", ["mcp.example.com"]); // ["localhost", "127.0.0.1", "[::1]", "<hostname>", "mcp.example.com"]
 */
export function allowedHostnames(host: string, extra: readonly string[] = []): string[] {
  const bound = WILDCARD.has(host) ? [] : [host.includes(":") && !host.startsWith("[") ? `[${host}]` : host];
  return [...new Set([...localhostAllowedHostnames(), hostname().toLowerCase(), ...bound, ...extra.map((name) => name.trim().toLowerCase()).filter(Boolean)])];
}

/**
 * Serves the factory's MCP server over HTTP at `/mcp` with the SDK's stateless handler: the
 * 2026-07-28 revision, and the stateless fallback for 2025-era clients (`createMcpHandler` +
 * `toNodeHandler`), behind the node adapter's Host and Origin validation.
 *
 * @example
 * const running = await startDocsHttpServer({ factory, port: 8080, host: "0.0.0.0" });
 * console.log(running.url); // http://0.0.0.0:8080/mcp
 */
export async function startDocsHttpServer(options: DocsHttpServerOptions): Promise<RunningDocsHttpServer> {
  const allowed = allowedHostnames(options.host, options.allowedHosts);
  const validateHost = hostHeaderValidation(allowed);
  const validateOrigin = originValidation(allowed);
  const handler = createMcpHandler(options.factory, { legacy: "stateless", ...(options.onerror ? { onerror: options.onerror } : {}) });
  const serve = toNodeHandler(handler, options.onerror ? { onerror: options.onerror } : {});
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== MCP_PATH) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: `Not found: the MCP endpoint is ${MCP_PATH}` }));
      return;
    }
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    serve(req, res).catch((error: unknown) => {
      options.onerror?.(error instanceof Error ? error : new Error(String(error)));
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "Internal error" }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${MCP_PATH}`,
    server,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
