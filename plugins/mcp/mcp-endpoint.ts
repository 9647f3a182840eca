import { toNodeHandler, type FetchLikeMcpHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer, validateHostHeader, validateOriginHeader, type AuthInfo, type McpHandlerRequestOptions } from "@modelcontextprotocol/server";
import type { Request, RequestHandler } from "express";
import type { APIError } from "../../kernel/api-error.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { operatorKeys, requestValidationError, ValidationErrors } from "../validation/index.js";
import { McpErrors } from "./errors.js";
import type { ServedTool } from "./served-tool.js";
import { callTool, type ErrorTranslator } from "./tool-results.js";

export interface McpEndpointOptions {
  /** The tools to serve (resolved at the first request, once every router has started). */
  readonly tools: () => readonly ServedTool[];
  /** Hostnames the `Host` header may name, or `any`. */
  readonly allowedHosts: readonly string[] | "any";
  /** Hostnames an `Origin` header may name (requests without one pass). */
  readonly allowedOrigins: readonly string[];
  readonly translate: ErrorTranslator;
  readonly logger: () => SvcLogger;
  readonly serverInfo: { readonly name: string; readonly version: string };
}

/** What the express route hands the SDK's per-request server factory, through `authInfo.extra`. */
interface CallerInfo extends Record<string, unknown> {
  readonly request: Request;
}

/**
 * The `POST /mcp` route: the MCP SDK's `createMcpHandler` (the stateless 2026-07-28 revision, with
 * the SDK's stateless fallback for 2025-era clients) behind `toNodeHandler`, after the checks
 * the SDK leaves to its host — `Host` and `Origin` against the allowlists (DNS rebinding) — and
 * the app's own rule that no body carries a `$`-prefixed key. Each request gets a fresh server
 * whose tools run as the request's caller (`req.user`, set by the app's authentication). A
 * request the SDK refuses at the HTTP level keeps its JSON-RPC error and gains the app's error
 * shape (`errors`, `requestId`), so every 4xx of the app reads the same.
 *
 * @example
 * router.post("/mcp", mcpEndpoint({ tools: () => tools, allowedHosts: ["localhost"], allowedOrigins: ["localhost"], translate, logger, serverInfo }));
 */
export function mcpEndpoint(options: McpEndpointOptions): RequestHandler {
  const { translate, logger } = options;
  const handler = createMcpHandler(
    (context) => {
      const caller = context.authInfo?.extra as CallerInfo | undefined;
      // The tool list is fixed once the app has started: advertising `listChanged` (the SDK's default)
      // would have clients hold a `subscriptions/listen` stream open that never carries anything,
      // and an open stream holds the app's stop for its whole grace period.
      const server = new McpServer({ name: options.serverInfo.name, version: options.serverInfo.version }, { capabilities: { tools: { listChanged: false } } });
      // A `tools/call` needs only the tool it names: an app with many models registers one tool
      // per call rather than all of them (an unknown name gets them all, and the SDK's answer).
      const tools = options.tools();
      const called = calledTool(caller?.request.body);
      const named = called === undefined ? [] : tools.filter((tool) => tool.name === called);
      for (const tool of named.length > 0 ? named : tools) {
        server.registerTool(tool.name, { description: tool.description, inputSchema: tool.arguments, annotations: tool.annotations }, (args) =>
          callTool(tool, args, caller!.request, { translate, logger: logger() }),
        );
      }
      return server;
    },
    { onerror: (error) => logger().debug(`MCP request refused: ${error.message}`) },
  );
  const shaped: FetchLikeMcpHandler = {
    fetch: async (request: globalThis.Request, requestOptions?: McpHandlerRequestOptions) => {
      const response = await handler.fetch(request, requestOptions);
      if (response.status < 400) return response;
      const caller = requestOptions?.authInfo?.extra as CallerInfo | undefined;
      return inErrorShape(response, caller?.request, logger);
    },
  };
  const serve = toNodeHandler(shaped, { onerror: (error) => logger().error(`MCP request failed: ${error.message}`, { stack: error.stack }) });

  return async function mcpRoute(req, res) {
    if (options.allowedHosts !== "any") {
      const host = validateHostHeader(req.headers.host, [...options.allowedHosts]);
      if (!host.ok) throw McpErrors.HOST_NOT_ALLOWED({ detail: host.message });
    }
    const origin = validateOriginHeader(req.headers.origin, [...options.allowedOrigins]);
    if (!origin.ok) throw McpErrors.ORIGIN_NOT_ALLOWED({ detail: origin.message });
    // Tool arguments reach database filters and writes: one rule for every tool, as for every route.
    const operators = operatorKeys(req.body);
    if (operators.length > 0) throw requestValidationError(operators, "body", ValidationErrors.OPERATOR_IN_BODY);
    const caller: CallerInfo = { request: req };
    // The SDK passes `authInfo` through untouched; the user itself is `req.user`, from the app's authentication.
    const auth: AuthInfo = { token: "", clientId: req.user?.id ?? "anonymous", scopes: [], extra: caller };
    await serve(Object.assign(req, { auth }), res, req.body);
  };
}

/** The tool a single JSON-RPC `tools/call` body names, if that is what it is. */
function calledTool(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  return method === "tools/call" && typeof params?.name === "string" ? params.name : undefined;
}

/** The SDK's HTTP-level refusal with the app's error shape added beside its JSON-RPC error. */
async function inErrorShape(response: Response, req: Request | undefined, logger: () => SvcLogger): Promise<Response> {
  const text = await response.text();
  let rpc: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) rpc = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the app's shape alone.
  }
  const rpcError = (rpc.error ?? {}) as { code?: unknown; message?: unknown };
  const detail = typeof rpcError.message === "string" ? rpcError.message : undefined;
  const meta = typeof rpcError.code === "number" ? { jsonrpcCode: rpcError.code } : undefined;
  const apiError = refusal(response.status, { detail, meta });
  if (apiError.status >= 500) logger().error(`MCP request failed with ${response.status}: ${detail ?? text.slice(0, 200)}`, { requestId: req?.requestId });
  const headers = new Headers(response.headers);
  headers.set("content-type", "application/json; charset=utf-8");
  headers.delete("content-length");
  const body = { ...rpc, errors: [apiError.toErrorObject()], requestId: req?.requestId };
  return new Response(JSON.stringify(body), { status: apiError.status, headers });
}

function refusal(status: number, details: { detail?: string; meta?: Record<string, unknown> }): APIError {
  if (status === 406) return McpErrors.NOT_ACCEPTABLE(details);
  if (status === 413) return HttpErrors.PAYLOAD_TOO_LARGE(details);
  if (status === 415) return HttpErrors.UNSUPPORTED_MEDIA_TYPE(details);
  if (status < 500) return McpErrors.INVALID_REQUEST(details);
  return HttpErrors.INTERNAL({ meta: details.meta });
}
