// What REST answers, the model tools answer: the same matrix of callers (anonymous, owner, another
// user, admin) and operations, legitimate and refused, through the real HTTP stack with real
// tokens — REST over fetch, MCP over the official v2 client pinned to 2026-07-28.
import test from "ava";
import { stopTestDatabase } from "../../hosts/testing.js";
import { connectMcp, McpNote, mcpTestApp, type ConnectedMcp, type McpTestApp, type ToolAnswer } from "../../test/support/mcp-test-app.js";

test.after.always(() => stopTestDatabase());

type Caller = "anonymous" | "owner" | "other" | "admin";
const CALLERS: readonly Caller[] = ["anonymous", "owner", "other", "admin"];

/** One REST answer, comparable with a tool's. */
interface Outcome {
  ok: boolean;
  body: unknown;
}

/** Ids and timestamps differ between two records made for one cell; everything else must not. */
const VOLATILE = new Set(["_id", "id", "created", "updated", "requestId"]);
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !VOLATILE.has(key))
      .map(([key, inner]) => [key, key === "detail" && typeof inner === "string" ? inner.replace(/[0-9a-f]{24}/g, "<id>") : normalized(inner)]),
  );
}

function withoutSecret(body: unknown): unknown {
  if (typeof body !== "object" || body === null || !("data" in body)) return body;
  const strip = (doc: unknown) => {
    if (typeof doc !== "object" || doc === null) return doc;
    const { secret: _secret, ...rest } = doc as Record<string, unknown>;
    return rest;
  };
  const data = (body as { data: unknown }).data;
  return { ...body, data: Array.isArray(data) ? data.map(strip) : strip(data) };
}

let restCalls = 0;
let secretsSeen = 0;

async function rest(app: McpTestApp, caller: Caller, method: string, path: string, body?: unknown): Promise<Outcome> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  restCalls++;
  if (caller !== "anonymous") headers.authorization = `Bearer ${app[caller].token}`;
  const response = await fetch(new URL(path, app.running.url), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 204) return { ok: true, body: { deleted: true } };
  const json = (await response.json()) as Record<string, unknown>;
  if (JSON.stringify(json).includes('"secret"')) secretsSeen++;
  return { ok: response.ok, body: response.ok ? withoutSecret(json) : { errors: json.errors } };
}

function tool(answer: ToolAnswer): Outcome {
  const body = answer.structuredContent as Record<string, unknown>;
  return { ok: !answer.isError, body: answer.isError ? { errors: body.errors } : body };
}

test.serial("every caller gets from the model tools exactly what REST gives, and never an excluded field", async (t) => {
  const app = await mcpTestApp(t);
  const clients = {} as Record<Caller, ConnectedMcp>;
  for (const caller of CALLERS) {
    clients[caller] = await connectMcp("pinned", app.url, caller === "anonymous" ? undefined : app[caller].token);
    t.teardown(() => clients[caller].close());
  }
  const ownerId = app.owner.id;
  await McpNote.create([
    { text: "first", done: false, priority: 2, secret: "s1", ownerId },
    { text: "second", done: true, priority: 4, secret: "s2", ownerId },
    { text: "third", done: false, priority: 5, secret: "s3", ownerId: app.other.id },
  ]);
  const call = (caller: Caller, name: string, args: Record<string, unknown>) => clients[caller].callTool({ name, arguments: args }).then(tool);
  /** A fresh record of the owner's, one for REST and one for MCP (writes consume them). */
  const pair = async () => {
    const [a, b] = await McpNote.create([
      { text: "pair", done: false, priority: 3, secret: "hidden", ownerId },
      { text: "pair", done: false, priority: 3, secret: "hidden", ownerId },
    ]);
    return [String(a!._id), String(b!._id)] as const;
  };

  let cells = 0;
  const same = (caller: Caller, what: string, viaRest: Outcome, viaMcp: Outcome) => {
    cells++;
    t.is(viaMcp.ok, viaRest.ok, `${caller} ${what}: ${JSON.stringify(viaRest)} vs ${JSON.stringify(viaMcp)}`);
    t.deepEqual(normalized(viaMcp.body), normalized(viaRest.body), `${caller} ${what}`);
    t.false(JSON.stringify(viaMcp.body).includes("secret"), `${caller} ${what}: no excluded field`);
    t.false(JSON.stringify(viaMcp.body).includes("hidden"), `${caller} ${what}: no excluded value`);
  };

  for (const caller of CALLERS) {
    // Reads: the same records, straight comparison (ids included).
    const listRest = await rest(app, caller, "GET", "/notes?sort=-priority");
    const listMcp = await call(caller, "mcp_note_list", { sort: "-priority" });
    t.deepEqual(listMcp, listRest, `${caller} list`);
    same(caller, "list", listRest, listMcp);
    // The matrix is not trivially equal: who sees what differs, and REST does show the secret.
    const texts = listMcp.ok ? (listMcp.body as { data: Array<{ text: string }> }).data.map((doc) => doc.text).filter((text) => text !== "pair" && text !== "made") : undefined;
    t.deepEqual(texts, { anonymous: undefined, owner: ["second", "first"], other: ["third"], admin: ["third", "second", "first"] }[caller], `${caller} sees`);
    same(
      caller,
      "list with filters",
      await rest(app, caller, "GET", "/notes?done=false&priority[$gte]=2&priority[$in]=2,3,5&limit=10&page=1"),
      await call(caller, "mcp_note_list", { filter: { done: false, priority: { gte: 2, in: [2, 3, 5] } }, limit: 10, page: 1 }),
    );
    same(caller, "list searching", await rest(app, caller, "GET", "/notes?search=FIRST"), await call(caller, "mcp_note_list", { search: "FIRST" }));
    same(caller, "list beyond maxLimit", await rest(app, caller, "GET", "/notes?limit=100000"), await call(caller, "mcp_note_list", { limit: 100000 }));
    same(caller, "list sorted by an unknown field", await rest(app, caller, "GET", "/notes?sort=nope"), await call(caller, "mcp_note_list", { sort: "nope" }));
    const [readA] = await pair();
    const readRest = await rest(app, caller, "GET", `/notes/${readA}`);
    same(caller, "read", readRest, await call(caller, "mcp_note_read", { id: readA }));
    t.is(readRest.ok, caller === "owner" || caller === "admin", `${caller} read`);
    same(caller, "read a malformed id", await rest(app, caller, "GET", "/notes/not-an-id"), await call(caller, "mcp_note_read", { id: "not-an-id" }));
    same(caller, "read a missing record", await rest(app, caller, "GET", "/notes/0123456789abcdef01234567"), await call(caller, "mcp_note_read", { id: "0123456789abcdef01234567" }));

    // Writes: one record each, compared without ids and timestamps.
    same(caller, "create", await rest(app, caller, "POST", "/notes", { text: "made", priority: 1 }), await call(caller, "mcp_note_create", { data: { text: "made", priority: 1 } }));
    same(caller, "create refused by preCreate", await rest(app, caller, "POST", "/notes", { text: "refused" }), await call(caller, "mcp_note_create", { data: { text: "refused" } }));
    same(caller, "create with a bad value", await rest(app, caller, "POST", "/notes", { text: "x", priority: 9 }), await call(caller, "mcp_note_create", { data: { text: "x", priority: 9 } }));
    same(caller, "create without text", await rest(app, caller, "POST", "/notes", { done: true }), await call(caller, "mcp_note_create", { data: { done: true } }));
    same(caller, "create with an unknown field", await rest(app, caller, "POST", "/notes", { text: "x", admin: true }), await call(caller, "mcp_note_create", { data: { text: "x", admin: true } }));
    same(
      caller,
      "create setting the owner (mass assignment)",
      await rest(app, caller, "POST", "/notes", { text: "x", ownerId: app.other.id }),
      await call(caller, "mcp_note_create", { data: { text: "x", ownerId: app.other.id } }),
    );
    let [a, b] = await pair();
    same(caller, "update", await rest(app, caller, "PATCH", `/notes/${a}`, { done: true, priority: null }), await call(caller, "mcp_note_update", { id: b, data: { done: true, priority: null } }));
    t.deepEqual(
      normalized(await McpNote.findById(b).lean()),
      normalized(await McpNote.findById(a).lean()),
      `${caller} update: the same record afterwards`,
    );
    [a, b] = await pair();
    same(caller, "update with a bad value", await rest(app, caller, "PATCH", `/notes/${a}`, { done: "maybe" }), await call(caller, "mcp_note_update", { id: b, data: { done: "maybe" } }));
    [a, b] = await pair();
    same(caller, "delete", await rest(app, caller, "DELETE", `/notes/${a}`), await call(caller, "mcp_note_delete", { id: b }));
    const [restDeleted, mcpDeleted] = await Promise.all([McpNote.collection.findOne({ _id: a as never }), McpNote.collection.findOne({ _id: b as never })]);
    t.is(mcpDeleted?.deleted, restDeleted?.deleted, `${caller} delete: the same soft delete`);
  }
  t.true(cells >= CALLERS.length * 16);
  t.true(secretsSeen > 0 && restCalls >= cells, "REST shows the field MCP keeps out");
});
