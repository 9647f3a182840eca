import { fromJsonSchema, type McpServer } from "@modelcontextprotocol/server";
import type { ClientStateReport } from "./client-state-store.js";
import { callDevRoute, requireDevServer } from "./dev-channel.js";
import { DEV_ROUTES_PATH } from "./dev-server-file.js";
import { RuntimeToolErrors } from "./runtime-errors.js";
import { toolAnswer, type RuntimeToolOptions } from "./tool-result.js";

/**
 * `get_rtk_state`: the client data-layer state that browser tabs of the app reported to the
 * development server's debug channel (`reportClientState()` from `svc/dev-runtime/client`).
 *
 * @example
 * registerRtkStateTool(server, { cwd: process.cwd(), env: process.env });
 */
export function registerRtkStateTool(server: McpServer, options: RuntimeToolOptions): void {
  server.registerTool(
    "get_rtk_state",
    {
      description:
        "The client data-layer state (query cache, sync collections, whatever the page reports) that browser tabs of the app posted to the " +
        "running development server with reportClientState(). Newest report first.",
      inputSchema: fromJsonSchema<{ clientId?: string }>({
        type: "object",
        properties: {
          clientId: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,100}$", description: "One client's report (default: every client's latest)." },
        },
        additionalProperties: false,
      }),
      annotations: { readOnlyHint: true },
    },
    (args) =>
      toolAnswer(async () => {
        const devServer = await requireDevServer(options.cwd);
        const query = args.clientId === undefined ? "" : `?clientId=${encodeURIComponent(args.clientId)}`;
        const { clients } = await callDevRoute<{ clients: ClientStateReport[] }>(devServer, `/client-state${query}`);
        if (clients.length === 0) throw RuntimeToolErrors.NO_CLIENT_STATE(new URL(`${DEV_ROUTES_PATH}/client-state`, devServer.url).href);
        return { clients };
      }),
  );
}
