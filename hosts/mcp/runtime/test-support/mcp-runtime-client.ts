import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import type { ExecutionContext } from "ava";
import { registerRuntimeTools } from "../index.js";

/** What a tool call answered: its text blocks joined, whether it is an error, and the raw content. */
export interface ToolOutcome {
  readonly text: string;
  readonly isError: boolean;
  readonly content: ReadonlyArray<{ type: string; text?: string; data?: string; mimeType?: string }>;
  /** The text parsed as JSON (throws when it is not). */
  json<T = Record<string, unknown>>(): T;
}

/**
 * An official MCP client connected in-process to a server that has only the runtime tools, for
 * the project in `cwd` with environment `env`; closed at teardown.
 *
 * @example
 * const call = await runtimeClient(t, projectDir, { SVC_MCP_EVAL: "1" });
 * const info = await call("application_info", {});
 */
export async function runtimeClient(
  t: ExecutionContext,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<((name: string, args: Record<string, unknown>) => Promise<ToolOutcome>) & { client: Client }> {
  const server = new McpServer({ name: "svc-mcp-local-test", version: "1.0.0" });
  registerRuntimeTools(server, { cwd, env });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "runtime-tools-test", version: "1.0.0" });
  await client.connect(clientSide);
  t.teardown(() => client.close());
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
    const result = await client.callTool({ name, arguments: args });
    const content = (result.content ?? []) as ToolOutcome["content"];
    const text = content.filter((block) => block.type === "text").map((block) => block.text ?? "").join("\n");
    return { text, isError: result.isError === true, content, json: <T>() => JSON.parse(text) as T };
  };
  return Object.assign(call, { client });
}
