import { defineErrors } from "../../kernel/errors.js";

/**
 * The MCP endpoint's errors. Entries with a `title` answer clients: at the HTTP level (a refused
 * `Host` or `Origin`, a request the MCP SDK refused) in the app's error shape, or inside a tool
 * result (`isError`) for a refused argument. Entries with a `message` are mistakes found while the
 * app starts (two tools with one name).
 *
 * @example
 * throw McpErrors.HOST_NOT_ALLOWED({ detail: "Host evil.example is not allowed" }); // 403 MCP_HOST_NOT_ALLOWED
 */
export const McpErrors = defineErrors("MCP", {
  /** The `Host` header names a host outside `MCP_ALLOWED_HOSTS` (DNS-rebinding protection). */
  HOST_NOT_ALLOWED: { status: 403, title: "Host not allowed" },
  /** The `Origin` header names an origin outside `MCP_ALLOWED_ORIGINS`. */
  ORIGIN_NOT_ALLOWED: { status: 403, title: "Origin not allowed" },
  /** The MCP SDK refused the request (malformed JSON-RPC, unsupported protocol revision...). */
  INVALID_REQUEST: { status: 400, title: "Invalid MCP request" },
  /** The request's `Accept` header takes neither JSON nor an event stream, as MCP requires. */
  NOT_ACCEPTABLE: { status: 406, title: "Not acceptable" },
  /** A tool argument names a field the model's `mcp.excludeFields` keeps from MCP clients. */
  FIELD_NOT_ACCEPTED: { status: 400, title: "Request validation failed" },
  /** Two tools (model or custom) share a name. */
  DUPLICATE_TOOL: { message: (name: string) => `Two MCP tools are named "${name}": tool names must be unique in an app` },
  /** A custom tool's name or schema cannot be served. */
  INVALID_TOOL: { message: (name: string, problem: string) => `MCP tool "${name}": ${problem}` },
});
