import type { SchemaObject } from "openapi3-ts/oas31";
import type { OpenApiRegistry } from "../../kernel/openapi-registry.js";
import { BEARER_SCHEME, sharedResponse } from "../../kernel/openapi-shared-components.js";

const JSON_RPC_MESSAGE: SchemaObject = {
  type: "object",
  description: "A JSON-RPC 2.0 request or notification of the Model Context Protocol",
  required: ["jsonrpc", "method"],
  properties: {
    jsonrpc: { type: "string", enum: ["2.0"], description: "Always 2.0" },
    id: { oneOf: [{ type: "string" }, { type: "integer" }], description: "The request's id (absent on notifications)" },
    method: { type: "string", description: "e.g. `server/discover`, `initialize`, `tools/list`, `tools/call`" },
    params: { type: "object", description: "The method's parameters (`tools/call`: `{name, arguments}`)" },
  },
};

/**
 * Documents `POST /mcp` as one operation: the tools themselves are listed by the protocol
 * (`tools/list`), not as OpenAPI operations. Callers authenticate as on every route; the tools
 * then allow what the caller may do.
 *
 * @example
 * documentMcpEndpoint(ctx.openapi, ["todo_list", "todo_read"]);
 */
export function documentMcpEndpoint(openapi: OpenApiRegistry, toolNames: readonly string[]): void {
  openapi.addTag({ name: "mcp", description: "Model Context Protocol endpoint for AI assistants" });
  openapi.addOperation("post", "/mcp", {
    operationId: "callMcp",
    summary: "Model Context Protocol endpoint",
    description:
      "Speaks the stateless MCP revision 2026-07-28, and 2025-era clients through the stateless fallback. " +
      `Tools: ${toolNames.map((name) => `\`${name}\``).join(", ")}. Each runs as the caller, with the permissions of the matching REST route. ` +
      "The `Accept` header must list both `application/json` and `text/event-stream` (406 MCP_NOT_ACCEPTABLE otherwise).",
    tags: ["mcp"],
    security: [{}, { [BEARER_SCHEME]: [] }],
    requestBody: { required: true, content: { "application/json": { schema: JSON_RPC_MESSAGE } } },
    responses: {
      200: {
        description: "The JSON-RPC response (a single JSON body, or an event stream when the client accepts one)",
        content: { "application/json": { schema: { type: "object" } }, "text/event-stream": { schema: { type: "string" } } },
      },
      202: { description: "A notification was accepted" },
      400: sharedResponse("BadRequest"),
      401: sharedResponse("Unauthorized"),
      403: sharedResponse("Forbidden"),
      406: {
        description: "The Accept header does not list both application/json and text/event-stream (MCP_NOT_ACCEPTABLE)",
        content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } },
      },
      413: sharedResponse("PayloadTooLarge"),
      415: sharedResponse("UnsupportedMediaType"),
    },
  });
}
