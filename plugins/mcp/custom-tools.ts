import type { Throttle } from "../throttle/index.js";
import type { McpToolDefinition } from "./mcp-tool.js";
import type { ServedTool } from "./served-tool.js";
import { toolArguments } from "./tool-arguments.js";

/**
 * A custom tool as `POST /mcp` serves it: its arguments checked against its `inputSchema`, its
 * throttle spent (when it has one), its handler called with the caller (`req.user`) and the request.
 *
 * @example
 * const served = customTool(definition, throttle);
 */
export function customTool(definition: McpToolDefinition, throttle?: Throttle): ServedTool {
  return {
    name: definition.name,
    description: definition.description,
    arguments: toolArguments(definition.inputSchema),
    run: async (args, req) => {
      await throttle?.consume({ user: req.user, ip: req.ip });
      return definition.handler(args, { user: req.user, request: req });
    },
  };
}
