import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Request } from "express";
import type { APIError } from "../../kernel/api-error.js";
import type { SvcLogger } from "../../kernel/logger.js";
import type { ServedTool } from "./served-tool.js";

/** Turns anything thrown into the `APIError` the REST routes would answer with (the host's). */
export type ErrorTranslator = (error: unknown) => APIError;

/**
 * Runs a tool and shapes its outcome: a result as text (a string) or JSON (text and
 * `structuredContent`); a refusal as a tool error (`isError`) carrying the same
 * `{errors: [{status, title, code, detail?, source?, meta?}], requestId}` body a REST route
 * answers with. A 5xx is logged with the request id and answered without internals.
 *
 * @example
 * const result = await callTool(tool, args, req, { translate: toAPIError, logger });
 */
export async function callTool(
  tool: ServedTool,
  args: Record<string, unknown>,
  req: Request,
  { translate, logger }: { translate: ErrorTranslator; logger: SvcLogger },
): Promise<CallToolResult> {
  try {
    const value = await tool.run(args, req);
    if (typeof value === "string") return { content: [{ type: "text", text: value }] };
    const json = value === undefined ? null : value;
    const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(json) }] };
    if (typeof json === "object" && json !== null && !Array.isArray(json)) result.structuredContent = json as Record<string, unknown>;
    return result;
  } catch (error) {
    const apiError = translate(error);
    if (apiError.status >= 500) {
      const cause = apiError.cause ?? error;
      logger.error(`MCP tool ${tool.name} failed: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`, {
        requestId: req.requestId,
        stack: cause instanceof Error ? cause.stack : undefined,
      });
    }
    const body = { errors: [apiError.toErrorObject()], requestId: req.requestId };
    return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body, isError: true };
  }
}
