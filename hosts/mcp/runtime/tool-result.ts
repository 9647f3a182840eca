import type { CallToolResult } from "@modelcontextprotocol/server";
import { SvcError } from "../../../kernel/errors.js";

/** What every runtime tool is given: the project it works on and the environment it reads. */
export interface RuntimeToolOptions {
  /** The project directory (`svc-mcp-local`'s working directory). */
  readonly cwd: string;
  /** `DB_URI`, `SVC_MCP_EVAL`, `NODE_ENV`, `SVC_LOG_DIR`, `SVC_MCP_CDP_URL`, `SVC_MCP_CHROMIUM` are read from here. */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Runs a tool body and turns its outcome into a tool result: a value becomes pretty JSON text (a
 * string stays as is), a catalogue error becomes a tool error `<code>: <message>` (never a
 * protocol error or a stack).
 *
 * @example
 * server.registerTool("x", {}, () => toolAnswer(async () => ({ ok: true })));
 */
export function toolAnswer(run: () => Promise<unknown>): Promise<CallToolResult> {
  return toolResult(async () => {
    const value = await run();
    return { content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) }] };
  });
}

/**
 * Like `toolAnswer`, for a tool that builds its own content (images, several blocks).
 *
 * @example
 * server.registerTool("shot", {}, () => toolResult(async () => ({ content: [{ type: "image", data, mimeType: "image/png" }] })));
 */
export async function toolResult(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    const text = error instanceof SvcError ? `${error.code}: ${error.message}` : `Unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
    return { content: [{ type: "text", text }], isError: true };
  }
}
