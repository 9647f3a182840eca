import { HTTP_ROUTER } from "../../contracts/http.js";
import { MODEL_REGISTRY, type ModelRegistration } from "../../contracts/model-registry.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { Throttle, throttleStoreOf } from "../throttle/index.js";
import { customTool } from "./custom-tools.js";
import { documentMcpEndpoint } from "./mcp-openapi.js";
import { createToolRegistry, MCP_TOOLS, type McpToolDefinition } from "./mcp-tool.js";
import { McpErrors } from "./errors.js";
import { modelToolNames, modelTools } from "./model-tools.js";
import type { ServedTool } from "./served-tool.js";
import type { ErrorTranslator } from "./tool-results.js";

export interface McpPluginOptions {
  /** The host's error translation, so tool errors carry exactly what the REST route would answer. */
  readonly translateError: ErrorTranslator;
}

/**
 * The MCP plugin every app has (the host adds it): it binds `MCP_TOOLS` for custom tools and, when
 * a model router has `mcp` or a custom tool is registered, mounts `POST /mcp` with the model tools
 * and the custom tools, documented as one OpenAPI operation. Otherwise it mounts nothing.
 * `MCP_ALLOWED_HOSTS` and `MCP_ALLOWED_ORIGINS` (comma-separated hostnames; `*` for any host)
 * say where it may be called from: by default loopback names, any host in production.
 *
 * @example
 * kernel.add(mcpPlugin({ translateError: toAPIError }));
 */
export function mcpPlugin(options: McpPluginOptions): SvcPlugin {
  return {
    name: "mcp",
    register(ctx) {
      ctx.container.bind(MCP_TOOLS, { useValue: createToolRegistry() });
    },
    async start(ctx) {
      const models = ctx.resolve(MODEL_REGISTRY).list().filter((entry) => entry.mcp);
      const custom = ctx.resolve(MCP_TOOLS).list();
      if (models.length === 0 && custom.length === 0) return;
      const names = [...models.flatMap(modelToolNames), ...custom.map((tool) => tool.name)];
      const duplicate = names.find((name, index) => names.indexOf(name) !== index);
      if (duplicate) throw McpErrors.DUPLICATE_TOOL(duplicate);

      // The MCP SDK is loaded only by apps that serve MCP (it adds ~200 ms to a start).
      const [{ mcpEndpoint }, { mcpSettings }] = await Promise.all([import("./mcp-endpoint.js"), import("./mcp-settings.js")]);
      const settings = mcpSettings(ctx.config);
      let tools: readonly ServedTool[] | undefined;
      const store = throttleStoreOf(ctx.container);
      const throttles = new Map(
        custom.flatMap((tool) => (tool.throttle === undefined ? [] : [[tool.name, new Throttle(`mcp-tool:${tool.name}`, tool.throttle, store, ctx.logger)] as const])),
      );
      const info = ctx.openapi.document().info;
      ctx.resolve(HTTP_ROUTER).post(
        "/mcp",
        mcpEndpoint({
          // Built at the first call: model routers start after this plugin.
          tools: () => (tools ??= collectTools(models, custom, throttles)),
          allowedHosts: settings.allowedHosts,
          allowedOrigins: settings.allowedOrigins,
          translate: options.translateError,
          logger: () => ctx.logger,
          serverInfo: { name: info.title, version: info.version },
        }),
      );
      documentMcpEndpoint(ctx.openapi, names);
    },
  };
}

function collectTools(models: readonly ModelRegistration[], custom: readonly McpToolDefinition[], throttles: ReadonlyMap<string, Throttle>): ServedTool[] {
  const tools: ServedTool[] = [];
  for (const registration of models) {
    const served = registration.served?.();
    // Every router has started before the app answers requests; one that has not serves no tools.
    if (served) tools.push(...modelTools(registration, served));
  }
  tools.push(...custom.map((tool) => customTool(tool, throttles.get(tool.name))));
  return tools;
}
