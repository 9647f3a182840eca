import { fromJsonSchema, type McpServer } from "@modelcontextprotocol/server";
import { findDevServer } from "./dev-server-file.js";
import { InspectorSession } from "./inspector-session.js";
import { RuntimeToolErrors } from "./runtime-errors.js";
import { toolAnswer, type RuntimeToolOptions } from "./tool-result.js";

/** The values of `SVC_MCP_EVAL` that enable `evaluate`. */
export const EVAL_ENABLED_VALUES: readonly string[] = ["1", "true"];

/** Where `evaluate` looks for an inspector when neither an argument nor the dev server names one. */
const DEFAULT_INSPECTOR_LIST = "http://127.0.0.1:9229/json/list";

const LOOPBACK_WS = /^wss?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?\//;

/**
 * `evaluate`: runs a JavaScript expression inside the running development server through the
 * Node inspector protocol (`Runtime.evaluate` over the inspector's WebSocket). Refused unless
 * `SVC_MCP_EVAL` is `1` or `true`, refused when svc-mcp-local or the target runs with
 * `NODE_ENV=production`, and only towards loopback inspectors.
 *
 * @example
 * registerEvaluateTool(server, { cwd: process.cwd(), env: { ...process.env, SVC_MCP_EVAL: "1" } });
 */
export function registerEvaluateTool(server: McpServer, options: RuntimeToolOptions): void {
  server.registerTool(
    "evaluate",
    {
      description:
        "Evaluate a JavaScript expression in the running development server (Node inspector, `node --inspect`), top-level await allowed; " +
        "answers its JSON value or description, or the thrown error. Disabled unless svc-mcp-local runs with SVC_MCP_EVAL=1; never in production.",
      inputSchema: fromJsonSchema<{ expression: string; inspectorUrl?: string; timeoutMs?: number }>({
        type: "object",
        properties: {
          expression: { type: "string", minLength: 1, maxLength: 20_000, description: "The expression, e.g. `process.memoryUsage()` or `await fetch(...)`." },
          inspectorUrl: {
            type: "string",
            maxLength: 500,
            pattern: "^wss?://",
            description: "The inspector's ws:// URL on this machine (default: the one the dev server announced, else 127.0.0.1:9229).",
          },
          timeoutMs: { type: "integer", minimum: 100, maximum: 60_000, description: "Abort the evaluation after this many ms (default 10000)." },
        },
        required: ["expression"],
        additionalProperties: false,
      }),
      annotations: { destructiveHint: true, openWorldHint: false },
    },
    (args) =>
      toolAnswer(async () => {
        if (!EVAL_ENABLED_VALUES.includes(options.env.SVC_MCP_EVAL?.trim().toLowerCase() ?? "")) throw RuntimeToolErrors.EVAL_DISABLED();
        if (options.env.NODE_ENV === "production") throw RuntimeToolErrors.EVAL_IN_PRODUCTION("svc-mcp-local");
        const timeoutMs = args.timeoutMs ?? 10_000;
        const url = await findInspector(options, args.inspectorUrl);
        const session = await InspectorSession.open(url, timeoutMs);
        try {
          // The target's own NODE_ENV decides too: a production process is never evaluated in.
          const target = await session.evaluate("process.env.NODE_ENV", timeoutMs);
          if (target.value === "production") throw RuntimeToolErrors.EVAL_IN_PRODUCTION(`the process at ${url}`);
          return { inspectorUrl: url, ...(await session.evaluate(args.expression, timeoutMs)) };
        } finally {
          session.close();
        }
      }),
  );
}

async function findInspector(options: RuntimeToolOptions, given: string | undefined): Promise<string> {
  if (given !== undefined) {
    if (!LOOPBACK_WS.test(given)) throw RuntimeToolErrors.INVALID_ARGUMENT("inspectorUrl must be a ws:// URL on this machine (127.0.0.1, localhost or [::1])");
    return given;
  }
  const announced = (await findDevServer(options.cwd))?.inspectorUrl;
  if (announced) return announced;
  try {
    const targets = (await (await fetch(DEFAULT_INSPECTOR_LIST, { signal: AbortSignal.timeout(2_000) })).json()) as Array<{ webSocketDebuggerUrl?: string }>;
    const found = targets.find((target) => target.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
    if (found) return found;
  } catch {
    // Nothing listens there: reported below with what was tried.
  }
  throw RuntimeToolErrors.NO_INSPECTOR(`no inspectorUrl argument, no inspector announced by a dev server in ${options.cwd}, nothing at ${DEFAULT_INSPECTOR_LIST}`);
}
