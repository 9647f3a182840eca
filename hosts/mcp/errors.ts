import { defineErrors } from "../../kernel/errors.js";

/**
 * Start-up mistakes of the documentation MCP servers (`svc-mcp`, `svc-mcp-local`). What a client
 * gets wrong is never one of these: tools answer it as a tool error (`isError: true`) and the
 * protocol layer answers malformed requests itself.
 *
 * @example
 * throw McpDocsErrors.DOCS_DIR_MISSING("/srv/docs"); // SvcError "MCP_DOCS_DOCS_DIR_MISSING"
 */
export const McpDocsErrors = defineErrors("MCP_DOCS", {
  /** `SVC_MCP_DOCS_DIR` (or the package's own docs) is not a readable folder. */
  DOCS_DIR_MISSING: { message: (dir: string) => `The documentation folder ${dir} does not exist or is not readable (set SVC_MCP_DOCS_DIR)` },
  /** One of the five resource documents (`mcp/<name>.md`) is missing from the documentation folder. */
  RESOURCE_DOC_MISSING: { message: (file: string) => `The resource document ${file} is missing (each of overview, api, ui, rtk and patterns needs mcp/<name>.md)` },
  /** `PORT` is not a TCP port number. */
  INVALID_PORT: { message: (value: string) => `PORT must be an integer from 0 to 65535, got "${value}"` },
});
