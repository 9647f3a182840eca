// The three official MCP clients the documentation servers are tested with — v2 pinned to
// 2026-07-28, v2 in its default (2025 handshake) mode, and the 1.x SDK — over HTTP or over stdio
// (the client spawns `tsx hosts/svc-mcp-local.ts`, as an editor spawns `npx svc-mcp-local`).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export type DocsClientKind = "pinned" | "default" | "sdk1";
export const DOCS_CLIENT_KINDS: readonly DocsClientKind[] = ["pinned", "default", "sdk1"];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export interface ToolAnswer {
  content?: unknown;
  isError?: boolean;
}

/** What the checks use of a client (v2 and 1.x share these methods). */
export interface DocsClient {
  readonly kind: DocsClientKind;
  listResources(): Promise<{ resources: Array<{ uri: string; name: string; description?: string; mimeType?: string }> }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; text?: string; mimeType?: string }> }>;
  listTools(): Promise<{ tools: Array<{ name: string; inputSchema: { properties?: Record<string, unknown>; required?: string[] } }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<ToolAnswer>;
  listPrompts(): Promise<{ prompts: Array<{ name: string; arguments?: Array<{ name: string; description?: string; required?: boolean }> }> }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: Array<{ role: string; content: unknown }> }>;
  /** The era the connection negotiated (`modern` or `legacy`). */
  era(): string;
  close(): Promise<void>;
}

const INFO = { name: "svc-docs-test", version: "1.0.0" };

function v2Client(kind: "pinned" | "default"): Client {
  return new Client(INFO, kind === "pinned" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {});
}

/** Connects a client of `kind` to an `svc-mcp` endpoint. */
export async function connectHttp(kind: DocsClientKind, url: string): Promise<DocsClient> {
  if (kind === "sdk1") {
    const client = new LegacyClient(INFO);
    await client.connect(new LegacyHttpTransport(new URL(url)));
    return wrap(kind, client, () => "legacy");
  }
  const client = v2Client(kind);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return wrap(kind, client, () => client.getProtocolEra() ?? "none");
}

/** Spawns `svc-mcp-local` (through tsx, from the source tree) and connects a client of `kind`. */
export async function connectStdio(kind: DocsClientKind, options: { cwd?: string; env?: Record<string, string> } = {}): Promise<DocsClient> {
  const params = {
    command: process.execPath,
    args: ["--import", import.meta.resolve("tsx"), path.join(root, "hosts", "svc-mcp-local.ts")],
    cwd: options.cwd ?? root,
    env: { ...(process.env as Record<string, string>), NODE_ENV: "test", ...options.env },
    stderr: "pipe" as const,
  };
  if (kind === "sdk1") {
    const client = new LegacyClient(INFO);
    await client.connect(new LegacyStdioTransport(params));
    return wrap(kind, client, () => "legacy");
  }
  const client = v2Client(kind);
  await client.connect(new StdioClientTransport(params));
  return wrap(kind, client, () => client.getProtocolEra() ?? "none");
}

function wrap(kind: DocsClientKind, client: unknown, era: () => string): DocsClient {
  const c = client as Omit<DocsClient, "kind" | "era">;
  return {
    kind,
    era,
    listResources: () => c.listResources(),
    readResource: (params) => c.readResource(params),
    listTools: () => c.listTools(),
    callTool: (params) => c.callTool(params),
    listPrompts: () => c.listPrompts(),
    getPrompt: (params) => c.getPrompt(params),
    close: () => c.close(),
  };
}

/** The text of a tool answer's first content block. */
export function answerText(answer: ToolAnswer): string {
  const [first] = (answer.content ?? []) as Array<{ type: string; text?: string }>;
  return first?.type === "text" ? (first.text ?? "") : "";
}
