import type { StandardSchemaWithJSON, ToolAnnotations } from "@modelcontextprotocol/server";
import type { Request } from "express";

/**
 * One tool as `POST /mcp` serves it: its listing, its argument check, and what it runs for a
 * request. `run` resolves with the result to send or throws the error to answer (an `APIError`,
 * or anything else for an opaque internal error).
 */
export interface ServedTool {
  readonly name: string;
  readonly description: string;
  readonly arguments: StandardSchemaWithJSON<Record<string, unknown>>;
  readonly annotations?: ToolAnnotations;
  run(args: Record<string, unknown>, req: Request): Promise<unknown>;
}
