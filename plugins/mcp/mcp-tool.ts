import type { Request } from "express";
import type { SchemaObject } from "openapi3-ts/oas31";
import type { RequestUser } from "../../contracts/request-user.js";
import { token } from "../../kernel/container.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { parseThrottleRate, type ThrottleRate } from "../throttle/index.js";
import { McpErrors } from "./errors.js";
import { toolArguments } from "./tool-arguments.js";

/** What a custom tool's handler gets besides its arguments: the caller, as REST routes see it. */
export interface McpToolContext {
  /** The authenticated caller of `POST /mcp` (undefined when anonymous). */
  readonly user: RequestUser | undefined;
  /** The `POST /mcp` request (headers, request id). */
  readonly request: Request;
}

/**
 * A custom MCP tool. `inputSchema` is a JSON Schema for an object; arguments that do not match it
 * are answered with a tool error before `handler` runs. What `handler` returns becomes the tool's
 * result: a string as text, anything else as JSON (text and `structuredContent`). An `APIError`
 * it throws (`HttpErrors.FORBIDDEN()`, a catalogue's error) becomes a tool error carrying the
 * error's code; anything else is logged and answered as an opaque `HTTP_INTERNAL` tool error.
 */
export interface McpToolDefinition<Args extends Record<string, unknown> = Record<string, unknown>> {
  /** 1 to 64 characters: letters, digits, `_`, `-`, `.` (unique in the app). */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: SchemaObject;
  /**
   * Calls per period per caller (a user by id, an anonymous client by IP), as `modelRouter`'s
   * `throttle`: `"10/minute"` or `{user, anonymous}`. Over it, the call is a tool error carrying
   * 429 `HTTP_RATE_LIMITED`, and the handler does not run.
   */
  readonly throttle?: ThrottleRate;
  handler(args: Args, context: McpToolContext): unknown;
}

/** The custom tools of one app, filled while plugins register. */
export interface McpToolRegistry {
  add(tool: McpToolDefinition): void;
  list(): readonly McpToolDefinition[];
}

/**
 * The app's custom MCP tools, bound by the MCP plugin (which every app has). A plugin adding its
 * own tool declares `dependsOn: ["mcp"]` and adds it while registering.
 *
 * @example
 * const reportsPlugin: SvcPlugin = {
 *   name: "reports",
 *   dependsOn: ["mcp"],
 *   register(ctx) {
 *     ctx.resolve(MCP_TOOLS).add({ name: "report_count", description: "Counts reports", inputSchema: { type: "object" }, handler: () => 42 });
 *   },
 * };
 */
export const MCP_TOOLS = token<McpToolRegistry>("mcp.Tools");

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * A registry checking tools as they arrive: name, schema, and duplicates among custom tools
 * (duplicates with model tools are found at start, once every router has registered).
 */
export function createToolRegistry(): McpToolRegistry {
  const tools: McpToolDefinition[] = [];
  return {
    add(tool) {
      if (!TOOL_NAME.test(tool.name)) throw McpErrors.INVALID_TOOL(tool.name, "names are 1 to 64 letters, digits, _, - or .");
      if (tool.inputSchema.type !== "object") throw McpErrors.INVALID_TOOL(tool.name, 'inputSchema must be a JSON Schema with type "object"');
      if (tools.some((known) => known.name === tool.name)) throw McpErrors.DUPLICATE_TOOL(tool.name);
      checkSchema(tool);
      // A typo in a rate fails the app's start, not the tool's first call.
      if (tool.throttle !== undefined) parseThrottleRate(tool.throttle, `MCP tool "${tool.name}": throttle`);
      tools.push(tool);
    },
    list: () => [...tools],
  };
}

/**
 * Builds the tool's argument check now, as its calls will (ajv keeps the compiled validator): a
 * schema ajv cannot compile would otherwise fail every `POST /mcp` request.
 */
function checkSchema(tool: McpToolDefinition): void {
  try {
    toolArguments(tool.inputSchema);
  } catch (error) {
    throw McpErrors.INVALID_TOOL(tool.name, `inputSchema cannot be compiled: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** How many `mcpTool` plugins each slug has named so far (the plugin names must differ). */
const slugsUsed = new Map<string, number>();

/**
 * A custom tool for the app's `POST /mcp`, as a plugin to register on the app. Registering one
 * mounts `POST /mcp` even when no model opts into MCP.
 *
 * @example
 * app.register(mcpTool({
 *   name: "todo_stats",
 *   description: "How many todos the caller has, and how many are done",
 *   inputSchema: { type: "object", properties: {}, additionalProperties: false },
 *   async handler(_args, { user }) {
 *     if (!user) throw HttpErrors.UNAUTHENTICATED();
 *     return { total: await Todo.countDocuments({ ownerId: user.id }) };
 *   },
 * }));
 */
export function mcpTool<Args extends Record<string, unknown> = Record<string, unknown>>(definition: McpToolDefinition<Args>): SvcPlugin {
  // Plugin names are kebab-case, so distinct tool names can share a slug ("note.count" and
  // "note_count", "Stats" and "stats"): a later one gets a numbered segment. Two tools with one
  // name thus reach the registry, which refuses the second with MCP_DUPLICATE_TOOL.
  const slug = definition.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "tool";
  const used = (slugsUsed.get(slug) ?? 0) + 1;
  slugsUsed.set(slug, used);
  return {
    name: used === 1 ? `mcp-tool:${slug}` : `mcp-tool:${slug}:${used}`,
    dependsOn: ["mcp"],
    register(ctx) {
      ctx.resolve(MCP_TOOLS).add(definition as unknown as McpToolDefinition);
    },
  };
}
