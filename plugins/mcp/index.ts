// The `svc/mcp` package entry: the app's `POST /mcp` (model tools from `modelRouter(..., { mcp })`
// and custom tools). Other plugins import MCP only through this file.
export { mcpTool, MCP_TOOLS, type McpToolContext, type McpToolDefinition, type McpToolRegistry } from "./mcp-tool.js";
export { mcpPlugin, type McpPluginOptions } from "./mcp-plugin.js";
export { mcpSettings, type McpSettings } from "./mcp-settings.js";
export { McpErrors } from "./errors.js";
export { toolStem } from "./model-tools.js";
export type { ModelMcpOptions } from "../../contracts/model-registry.js";
