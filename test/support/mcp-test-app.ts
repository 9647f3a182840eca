// Shared set-up for the tests of the app's POST /mcp: a JWT app (real sign-in, real tokens) with
// an owner-scoped note model opted into MCP, a custom tool, and the three official MCP clients
// (v2 pinned to 2026-07-28, v2 in its default mode, the 1.x SDK) connected over HTTP.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import mongoose from "mongoose";
import { createUser, loginAs, type TestAccount } from "../../hosts/testing.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import { mcpTool } from "../../plugins/mcp/index.js";
import { defaultPlugins, modelRouter, OwnerQueryFilter, Permissions } from "../../plugins/rest/index.js";
import type { RunningApp } from "../../hosts/svc-app.js";
import { authTestApp, type AuthTestApp } from "./auth-test-app.js";

export interface McpNoteFields {
  text: string;
  done: boolean;
  priority?: number;
  secret?: string;
  ownerId?: mongoose.Types.ObjectId;
}

const noteSchema = new mongoose.Schema<McpNoteFields>(
  {
    text: { type: String, required: true, maxlength: 200, description: "The note" },
    done: { type: Boolean, default: false, description: "Whether it is done" },
    priority: { type: Number, min: 1, max: 5, description: "1 (low) to 5 (urgent)" },
    secret: { type: String, description: "Kept from MCP clients" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, index: true, description: "The owner" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
noteSchema.plugin(defaultPlugins);

/** The note model (one per test process). */
export const McpNote = mongoose.models.McpNote ?? mongoose.model<McpNoteFields>("McpNote", noteSchema);

/**
 * `/notes`: anyone signed in lists and creates, owners read and change theirs, admins delete;
 * `secret` excluded from MCP; a `preCreate` hook refusing the text "refused"; a response handler
 * marking each document.
 */
export function noteRouter() {
  return modelRouter("/notes", McpNote, {
    permissions: {
      list: [Permissions.IsAuthenticated],
      create: [Permissions.IsAuthenticated],
      read: [Permissions.IsOwner],
      update: [Permissions.IsOwner],
      delete: [Permissions.IsAdmin],
    },
    queryFilter: OwnerQueryFilter,
    queryFields: ["done", "priority", "secret"],
    searchFields: ["text"],
    preCreate: (body) => (body.text === "refused" ? null : body),
    responseHandler: (doc) => ({ ...doc, shaped: true }),
    mcp: { excludeFields: ["secret"], methods: ["list", "read", "create", "update", "delete"] },
  });
}

/** A custom tool: who is calling, and an echo of its one argument. */
export const whoamiTool = mcpTool<{ greeting: string }>({
  name: "whoami",
  description: "Says who the caller is",
  inputSchema: { type: "object", properties: { greeting: { type: "string", maxLength: 20 } }, required: ["greeting"], additionalProperties: false },
  handler: ({ greeting }, { user }) => {
    if (greeting === "forbidden") throw HttpErrors.FORBIDDEN({ detail: "Not this greeting" });
    if (greeting === "crash") throw new Error("internal details at /srv/app.ts:12:3");
    return { greeting, user: user?.email ?? null };
  },
});

export interface McpTestApp extends AuthTestApp {
  running: RunningApp;
  url: URL;
  owner: TestAccount & { token: string };
  other: TestAccount & { token: string };
  admin: TestAccount & { token: string };
}

/**
 * A started JWT app with `noteRouter()` and `whoamiTool`, listening on a loopback port, and three
 * signed-in users (owner, other, admin).
 *
 * @example
 * const app = await mcpTestApp(t);
 * const client = await connectMcp("pinned", app.url, app.owner.token);
 */
export async function mcpTestApp(t: { teardown: (fn: () => Promise<void> | void) => void }, env: Record<string, string> = {}): Promise<McpTestApp> {
  const base = await authTestApp(t, {}, env, (app) => app.register(noteRouter()).register(whoamiTool), { port: 0 });
  const running = await base.app.start();
  const signIn = async (fields: { admin?: boolean }) => {
    const account = await createUser(base.app, fields);
    return { ...account, token: await loginAs(base.app, account) };
  };
  const [owner, other, admin] = [await signIn({}), await signIn({}), await signIn({ admin: true })];
  return { ...base, running, url: new URL("/mcp", running.url), owner, other, admin };
}

/** The three official clients the endpoint is tested with. */
export type McpClientKind = "pinned" | "default" | "sdk1";
export const CLIENT_KINDS: readonly McpClientKind[] = ["pinned", "default", "sdk1"];

/** What the tests use of a connected client (the v2 and 1.x clients share it). */
export interface ConnectedMcp {
  listTools(): Promise<{ tools: Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<ToolAnswer>;
  close(): Promise<void>;
}

export interface ToolAnswer {
  content?: unknown;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * Connects one of the official clients to `url`, as the holder of `token` (anonymous without).
 *
 * @example
 * const client = await connectMcp("sdk1", app.url, app.owner.token);
 * await client.callTool({ name: "note_list", arguments: {} });
 */
export async function connectMcp(kind: McpClientKind, url: URL, token?: string): Promise<ConnectedMcp> {
  const requestInit: RequestInit = token ? { headers: { authorization: `Bearer ${token}` } } : {};
  if (kind === "sdk1") {
    const client = new LegacyClient({ name: "svc-test-sdk1", version: "1.0.0" });
    await client.connect(new LegacyTransport(url, { requestInit }));
    return client as unknown as ConnectedMcp;
  }
  const client = new Client(
    { name: `svc-test-${kind}`, version: "1.0.0" },
    kind === "pinned" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return client as unknown as ConnectedMcp;
}
