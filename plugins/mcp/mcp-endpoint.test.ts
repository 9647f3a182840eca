import test from "ava";
import mongoose from "mongoose";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import { ValidationErrors } from "../validation/index.js";
import { RestErrors } from "../rest/index.js";
import { sendRaw } from "../../test/support/raw-http.js";
import { CLIENT_KINDS, connectMcp, McpNote, mcpTestApp, noteRouter } from "../../test/support/mcp-test-app.js";
import { McpErrors, mcpTool } from "./index.js";
import { createToolRegistry } from "./mcp-tool.js";
import { modelRouter, Permissions } from "../rest/index.js";

test.after.always(() => stopTestDatabase());

const errorsOf = (answer: { structuredContent?: Record<string, unknown> }) => (answer.structuredContent?.errors ?? []) as Array<{ code: string; status: string; detail?: string }>;

for (const kind of CLIENT_KINDS) {
  test.serial(`${kind} client: lists the model and custom tools, calls them, and gets invalid arguments back as tool errors`, async (t) => {
    const app = await mcpTestApp(t);
    const client = await connectMcp(kind, app.url, app.owner.token);
    t.teardown(() => client.close());
    const { tools } = await client.listTools();
    t.deepEqual(tools.map((tool) => tool.name).sort(), ["mcp_note_create", "mcp_note_delete", "mcp_note_list", "mcp_note_read", "mcp_note_update", "whoami"]);
    // Input schemas come from REST's: create's `data` is the create schema without the excluded field.
    const create = tools.find((tool) => tool.name === "mcp_note_create")!;
    const data = (create.inputSchema.properties as Record<string, { properties: Record<string, unknown>; required?: string[] }>).data;
    t.deepEqual(Object.keys(data.properties).sort(), ["done", "priority", "text"]);
    t.deepEqual(data.required, ["text"]);
    const list = tools.find((tool) => tool.name === "mcp_note_list")!;
    const filter = (list.inputSchema.properties as Record<string, { properties: Record<string, unknown> }>).filter;
    t.deepEqual(Object.keys(filter.properties).sort(), ["done", "priority"], "no filter on the excluded field");
    // Described in the tool's terms: operators without `$`, examples in JSON, none of REST's query syntax.
    const priority = (filter.properties.priority as { description: string }).description;
    t.regex(priority, /^Filter on `priority`.*an object applies operators.*`gte` `lt`.*Examples: `1`, `\{"gte": 1, "lt": 3\}`/);
    t.false(/\$|\[|, ,/.test(priority), priority);
    // Operators are described as JSON arguments, not as REST's query string.
    const operators = (filter.properties.priority as { anyOf: Array<{ properties?: Record<string, { description: string }> }> }).anyOf[1]!.properties!;
    t.is(operators.in!.description, "Equal to any of these values (1 to 100)");
    t.is(operators.nin!.description, "Equal to none of these values (1 to 100)");
    t.is(operators.eq!.description, "Equal to (the same as giving the value itself)");
    t.false(/comma-separated|field=value|=value/.test(JSON.stringify(list.inputSchema)), "no query-string wording");

    const created = await client.callTool({ name: "mcp_note_create", arguments: { data: { text: "from mcp", priority: 2 } } });
    t.falsy(created.isError);
    const note = (created.structuredContent as { data: Record<string, unknown> }).data;
    t.like(note, { text: "from mcp", priority: 2, done: false, ownerId: app.owner.id, shaped: true });
    const stored = await McpNote.findById(note.id).lean();
    t.is(String(stored?.ownerId), app.owner.id, "written as the caller");

    t.deepEqual((await client.callTool({ name: "whoami", arguments: { greeting: "hi" } })).structuredContent, { greeting: "hi", user: app.owner.email });
    // Schema errors are tool errors, not protocol failures.
    for (const [name, args] of [
      ["whoami", { greeting: 42 }],
      ["whoami", {}],
      ["mcp_note_read", {}],
      ["mcp_note_create", { data: "text" }],
      ["mcp_note_update", { id: note.id, data: { text: "x" }, extra: 1 }],
      ["mcp_note_list", { limit: "ten" }],
      ["mcp_note_list", { filter: { text: "first" } }],
      ["mcp_note_list", { filter: { priority: { where: 1 } } }],
      ["mcp_note_list", { filter: { priority: { gte: { deeper: 1 } } } }],
    ] as const) {
      const answer = await client.callTool({ name, arguments: args as Record<string, unknown> });
      t.true(answer.isError, `${name} ${JSON.stringify(args)}`);
    }
    // Each issue names its path once.
    const text = async (name: string, args: Record<string, unknown>) => JSON.stringify((await client.callTool({ name, arguments: args })).content);
    t.regex(await text("mcp_note_create", {}), /data: is required/);
    t.regex(await text("mcp_note_read", { id: 42 }), /id: must be a string/);
    t.regex(await text("mcp_note_list", { filter: { priority: { where: 1 } } }), /filter\.priority: /);
    for (const answer of [await text("mcp_note_create", {}), await text("mcp_note_read", { id: 42 }), await text("whoami", { greeting: 42 })]) {
      t.false(/(\w+): \1:/.test(answer), answer);
    }
    // An unknown tool is the SDK's answer, however many tools the app has (each call registers only the one it names).
    const unknown = await client.callTool({ name: "mcp_note_explode", arguments: {} }).catch((error: unknown) => error);
    t.regex(JSON.stringify(unknown instanceof Error ? { message: unknown.message } : unknown), /mcp_note_explode/);
    // A refusal carries REST's error; an unexpected failure answers without internals.
    t.is(errorsOf(await client.callTool({ name: "mcp_note_read", arguments: { id: "0123456789abcdef01234567" } }))[0]?.code, RestErrors.NOT_FOUND.code);
    t.is(errorsOf(await client.callTool({ name: "whoami", arguments: { greeting: "forbidden" } }))[0]?.code, HttpErrors.FORBIDDEN.code);
    const crash = await client.callTool({ name: "whoami", arguments: { greeting: "crash" } });
    t.true(crash.isError);
    t.is(errorsOf(crash)[0]?.code, HttpErrors.INTERNAL.code);
    t.false(JSON.stringify(crash).includes("/srv/app.ts"), "no internals");
    t.true(app.logs.text().includes("MCP tool whoami failed") && app.logs.text().includes("/srv/app.ts"), "logged");
  });
}

test.serial("hostile arguments are refused and write nothing: $ keys, excluded fields, mass assignment", async (t) => {
  const app = await mcpTestApp(t);
  const client = await connectMcp("pinned", app.url, app.owner.token);
  t.teardown(() => client.close());
  const note = await McpNote.create({ text: "mine", secret: "kept", ownerId: app.owner.id });
  const before = await McpNote.find().lean();

  // `$` keys anywhere in the request: refused before any tool runs (HTTP 400 in the app's shape).
  for (const args of [
    { id: String(note._id), data: { $set: { ownerId: app.other.id } } },
    { id: String(note._id), data: { text: { $gt: "" } } },
  ]) {
    await t.throwsAsync(client.callTool({ name: "mcp_note_update", arguments: args }), undefined, JSON.stringify(args));
  }
  await t.throwsAsync(client.callTool({ name: "mcp_note_list", arguments: { filter: { priority: { $where: "sleep(1000)" } } } }));
  const raw = await sendRaw(app.running.url, {
    method: "POST",
    path: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${app.owner.token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "mcp_note_list", arguments: { filter: { $where: "1" } } } }),
  });
  t.is(raw.status, 400);
  t.is(raw.json().errors[0]!.code, ValidationErrors.OPERATOR_IN_BODY.code);
  t.is(raw.json().requestId, String(raw.headers["x-request-id"]));

  // Excluded fields: neither written, nor filtered or sorted on (which would reveal them).
  const excluded = [
    await client.callTool({ name: "mcp_note_update", arguments: { id: String(note._id), data: { secret: "changed" } } }),
    await client.callTool({ name: "mcp_note_create", arguments: { data: { text: "x", secret: "planted" } } }),
    await client.callTool({ name: "mcp_note_list", arguments: { sort: "-secret" } }),
  ];
  for (const answer of excluded) t.is(errorsOf(answer)[0]?.code, McpErrors.FIELD_NOT_ACCEPTED.code);
  // A filter on an excluded query field: the same refusal whether or not a record matches.
  const filtered = await Promise.all(
    [{ secret: "kept" }, { secret: "absent" }, { secret: { exists: true } }, { secret: { ne: "kept" } }].map((filter) =>
      client.callTool({ name: "mcp_note_list", arguments: { filter } }),
    ),
  );
  for (const answer of filtered) {
    t.is(errorsOf(answer)[0]?.code, McpErrors.FIELD_NOT_ACCEPTED.code);
    t.deepEqual(errorsOf(answer), errorsOf(filtered[0]!));
  }
  t.is(errorsOf(filtered[0]!)[0]?.detail, "secret: not available to MCP clients");

  // Mass assignment: the owner, ids, timestamps and unknown fields, as REST refuses them.
  const refusals = {
    owner: await client.callTool({ name: "mcp_note_update", arguments: { id: String(note._id), data: { ownerId: app.other.id } } }),
    id: await client.callTool({ name: "mcp_note_create", arguments: { data: { text: "x", _id: "0123456789abcdef01234567" } } }),
    created: await client.callTool({ name: "mcp_note_update", arguments: { id: String(note._id), data: { created: "2020-01-01" } } }),
    admin: await client.callTool({ name: "mcp_note_create", arguments: { data: { text: "x", admin: true } } }),
  };
  t.is(errorsOf(refusals.owner)[0]?.code, ValidationErrors.READ_ONLY_FIELD.code);
  t.is(errorsOf(refusals.id)[0]?.code, ValidationErrors.READ_ONLY_FIELD.code);
  t.is(errorsOf(refusals.created)[0]?.code, ValidationErrors.READ_ONLY_FIELD.code);
  t.is(errorsOf(refusals.admin)[0]?.code, ValidationErrors.UNKNOWN_FIELD.code);
  // Another user's record is missing to them, as over REST.
  const other = await connectMcp("pinned", app.url, app.other.token);
  t.teardown(() => other.close());
  t.is(errorsOf(await other.callTool({ name: "mcp_note_update", arguments: { id: String(note._id), data: { text: "stolen" } } }))[0]?.code, RestErrors.NOT_FOUND.code);

  t.deepEqual(await McpNote.find().lean(), before, "nothing written");
  const read = await client.callTool({ name: "mcp_note_read", arguments: { id: String(note._id) } });
  t.false(JSON.stringify(read).includes("kept"), "the excluded value never leaves the server");
});

test.serial("Host and Origin are checked: loopback by default, MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS otherwise", async (t) => {
  const message = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  const post = (url: string, headers: Record<string, string>) =>
    sendRaw(url, { method: "POST", path: "/mcp", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: message });

  const local = await mcpTestApp(t);
  const port = new URL(local.running.url).port;
  t.is((await post(local.running.url, { host: `localhost:${port}` })).status, 200);
  t.is((await post(local.running.url, { host: `localhost:${port}`, origin: `http://127.0.0.1:5173` })).status, 200);
  const badHost = await post(local.running.url, { host: "evil.example" });
  t.is(badHost.status, 403);
  t.is(badHost.json().errors[0]!.code, McpErrors.HOST_NOT_ALLOWED.code);
  t.is(badHost.json().requestId, String(badHost.headers["x-request-id"]));
  const badOrigin = await post(local.running.url, { host: `localhost:${port}`, origin: "https://evil.example" });
  t.is(badOrigin.status, 403);
  t.is(badOrigin.json().errors[0]!.code, McpErrors.ORIGIN_NOT_ALLOWED.code);
  t.is((await post(local.running.url, { host: `localhost:${port}`, origin: "null" })).status, 403);

  const configured = await mcpTestApp(t, { MCP_ALLOWED_HOSTS: "api.example.com", MCP_ALLOWED_ORIGINS: "app.example.com" });
  t.is((await post(configured.running.url, { host: "api.example.com" })).status, 200);
  t.is((await post(configured.running.url, { host: "api.example.com", origin: "https://app.example.com" })).status, 200);
  t.is((await post(configured.running.url, { host: `localhost:${port}` })).status, 403);
  t.is((await post(configured.running.url, { host: "api.example.com", origin: "http://localhost:3000" })).status, 403);
});

test.serial("requests the MCP SDK refuses keep its JSON-RPC error and gain the app's error shape", async (t) => {
  const app = await mcpTestApp(t);
  const post = (headers: Record<string, string>, body: string) => sendRaw(app.running.url, { method: "POST", path: "/mcp", headers: { "content-type": "application/json", ...headers }, body });
  const list = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" });
  const notAcceptable = await post({ accept: "text/html" }, list);
  t.is(notAcceptable.status, 406);
  const body = notAcceptable.json<{ jsonrpc: string; error: { code: number }; errors: Array<{ code: string; status: string }>; requestId: string }>();
  t.is(body.errors[0]!.code, McpErrors.NOT_ACCEPTABLE.code);
  t.is(body.errors[0]!.status, "406");
  t.is(body.jsonrpc, "2.0");
  t.is(typeof body.error.code, "number");
  t.is(body.requestId, String(notAcceptable.headers["x-request-id"]));
  const garbage = await post({ accept: "application/json, text/event-stream" }, JSON.stringify({ hello: "world" }));
  t.is(garbage.status, 400);
  t.is(garbage.json().errors[0]!.code, McpErrors.INVALID_REQUEST.code);
  const text = await sendRaw(app.running.url, { method: "POST", path: "/mcp", headers: { "content-type": "text/plain", accept: "application/json, text/event-stream" }, body: list });
  t.is(text.status, 415);
  t.is(text.json().errors[0]!.code, HttpErrors.UNSUPPORTED_MEDIA_TYPE.code);
  // Only POST is served: the rest of the transport's methods are the app's 404.
  t.is((await sendRaw(app.running.url, { method: "GET", path: "/mcp" })).status, 404);
  // A bad token is refused by the app's authentication before MCP.
  const forged = await post({ accept: "application/json, text/event-stream", authorization: "Bearer forged" }, list);
  t.is(forged.status, 401);
});

test.serial("POST /mcp is one OpenAPI operation, and is mounted only when a model has mcp or a tool is registered", async (t) => {
  const app = await mcpTestApp(t);
  const document = (await (await fetch(new URL("/openapi.json", app.running.url))).json()) as { paths: Record<string, Record<string, { operationId?: string; description?: string }>> };
  t.deepEqual(Object.keys(document.paths["/mcp"] ?? {}), ["post"]);
  t.is(document.paths["/mcp"]!.post!.operationId, "callMcp");
  t.true(document.paths["/mcp"]!.post!.description!.includes("`mcp_note_list`"));

  const without = await createTestApp({ port: 0 });
  without.register(modelRouterWithoutMcp());
  t.teardown(() => without.stop());
  const running = await without.start();
  t.is((await sendRaw(running.url, { method: "POST", path: "/mcp", headers: { "content-type": "application/json" }, body: "{}" })).status, 404);
  t.false(JSON.stringify(without.kernel.openapi.document().paths).includes("/mcp"));

  const toolOnly = await createTestApp({ port: 0 });
  toolOnly.register(mcpTool({ name: "ping", description: "Answers pong", inputSchema: { type: "object" }, handler: () => "pong" }));
  t.teardown(() => toolOnly.stop());
  const toolRunning = await toolOnly.start();
  const client = await connectMcp("default", new URL("/mcp", toolRunning.url));
  t.teardown(() => client.close());
  t.deepEqual((await client.callTool({ name: "ping", arguments: {} })).content, [{ type: "text", text: "pong" }]);
});

test.serial("two tools with one name stop the app at start; a tool name must be servable", async (t) => {
  const app = await createTestApp({ port: 0 });
  app.register(mcpTool({ name: "mcp_note_list", description: "Clashes with the model tool", inputSchema: { type: "object" }, handler: () => "x" }));
  app.register(noteRouter());
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(app.build());
  t.regex(String(error?.message), /Two MCP tools are named "mcp_note_list"/);
  const registry = createToolRegistry();
  t.throws(() => registry.add({ name: "bad name!", description: "x", inputSchema: { type: "object" }, handler: () => "x" }), { message: /names are 1 to 64/ });
  t.throws(() => registry.add({ name: "arrayed", description: "x", inputSchema: { type: "array" }, handler: () => "x" }), { message: /type "object"/ });
});

test.serial("two custom tools with one name stop the app with MCP_DUPLICATE_TOOL; distinct names never clash", async (t) => {
  const tool = (name: string) => mcpTool({ name, description: `Answers ${name}`, inputSchema: { type: "object" }, handler: () => name });
  const twice = await createTestApp({ port: 0 });
  twice.register(tool("report_count")).register(tool("report_count"));
  t.teardown(() => twice.stop());
  const error = await t.throwsAsync(twice.build());
  t.is((error as { code?: string }).code, McpErrors.DUPLICATE_TOOL.code);
  t.regex(String(error?.message), /Two MCP tools are named "report_count"/);

  // Names that differ only in punctuation or case are distinct tools.
  const names = ["note.count", "note_count", "note-count", "Stats", "stats"];
  const distinct = await createTestApp({ port: 0 });
  for (const name of names) distinct.register(tool(name));
  t.teardown(() => distinct.stop());
  const running = await distinct.start();
  const client = await connectMcp("pinned", new URL("/mcp", running.url));
  t.teardown(() => client.close());
  t.deepEqual((await client.listTools()).tools.map((listed) => listed.name).sort(), [...names].sort());
  for (const name of names) t.deepEqual((await client.callTool({ name, arguments: {} })).content, [{ type: "text", text: name }]);
});

test.serial("a custom tool whose inputSchema cannot be compiled is refused at start with MCP_INVALID_TOOL", async (t) => {
  const broken = { type: "object", properties: { a: { type: "nope" } } } as never;
  const registry = createToolRegistry();
  const refused = t.throws(() => registry.add({ name: "broken", description: "x", inputSchema: broken, handler: () => "x" }));
  t.is((refused as { code?: string }).code, McpErrors.INVALID_TOOL.code);
  t.regex(String(refused?.message), /MCP tool "broken": inputSchema cannot be compiled: .*nope/);

  const app = await createTestApp({ port: 0 });
  app.register(mcpTool({ name: "broken", description: "x", inputSchema: broken, handler: () => "x" }));
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(app.build());
  t.is((error as { code?: string }).code, McpErrors.INVALID_TOOL.code);
  t.regex(String(error?.message), /"broken".*nope/);
});

test.serial("excludeFields: a dotted path leaves the nested schema, and a search looking in an excluded field is refused as such", async (t) => {
  const app = await createTestApp({ port: 0 });
  app.register(cardRouter());
  t.teardown(() => app.stop());
  const running = await app.start();
  const client = await connectMcp("pinned", new URL("/mcp", running.url));
  t.teardown(() => client.close());
  const { tools } = await client.listTools();
  type Schema = { properties: Record<string, Schema>; required?: string[] };
  const create = (tools.find((listed) => listed.name === "mcp_card_create")!.inputSchema as unknown as Schema).properties.data!;
  t.deepEqual(Object.keys(create.properties).sort(), ["meta", "title"]);
  t.deepEqual(Object.keys(create.properties.meta!.properties), ["shown"]);
  t.is(create.properties.meta!.required, undefined, "meta.internal is not required either");
  // An update replaces `meta` whole, which would erase meta.internal: it is not offered.
  const update = (tools.find((listed) => listed.name === "mcp_card_update")!.inputSchema as unknown as Schema).properties.data!;
  t.deepEqual(Object.keys(update.properties), ["title"]);
  const list = tools.find((listed) => listed.name === "mcp_card_list")!;
  t.false("search" in (list.inputSchema.properties as Record<string, unknown>), "search is not offered");

  const search = await client.callTool({ name: "mcp_card_list", arguments: { search: "x" } });
  t.is(errorsOf(search)[0]?.code, McpErrors.FIELD_NOT_ACCEPTED.code);
  t.is(errorsOf(search)[0]?.detail, "search: not available to MCP clients");
  const written = await client.callTool({ name: "mcp_card_create", arguments: { data: { title: "x", meta: { internal: "planted" } } } });
  t.is(errorsOf(written)[0]?.detail, "meta.internal: not available to MCP clients");
});

/** Cards with a nested field and a search field kept from MCP clients. */
function cardRouter() {
  const schema = new mongoose.Schema(
    {
      title: { type: String, required: true, description: "The title" },
      secret: { type: String, description: "Kept from MCP clients" },
      meta: {
        internal: { type: String, required: true, description: "Kept from MCP clients" },
        shown: { type: String, description: "Shown to everyone" },
      },
    },
    { strict: "throw" },
  );
  const McpCard = mongoose.models.McpCard ?? mongoose.model("McpCard", schema);
  return modelRouter("/cards", McpCard, {
    permissions: { list: [Permissions.IsAny], create: [Permissions.IsAny], update: [Permissions.IsAny] },
    queryFields: ["title", "secret"],
    searchFields: ["title", "secret"],
    mcp: { excludeFields: ["secret", "meta.internal"] },
  });
}

/** The note model served without `mcp`: no tools, so no endpoint. */
function modelRouterWithoutMcp() {
  return modelRouter("/notes", McpNote, { permissions: { list: [Permissions.IsAny] } });
}

test.serial("the tool list never changes, so no listChanged is advertised and a subscriptions/listen stream ends at once (stop is not held)", async (t) => {
  const app = await mcpTestApp(t);
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
  const post = (method: string, params: Record<string, unknown>) =>
    fetch(app.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
    });
  const discovered = (await (await post("server/discover", {})).json()) as { result: { capabilities: { tools?: { listChanged?: boolean } } } };
  t.not(discovered.result.capabilities.tools?.listChanged, true);
  // A client asking anyway gets the acknowledgement with nothing honoured and the stream's end, not a stream held open.
  const listen = await post("subscriptions/listen", { notifications: { toolsListChanged: true } });
  const body = await Promise.race([listen.text(), new Promise<string>((resolve) => setTimeout(() => resolve("still open after 3 s"), 3000))]);
  t.regex(body, /"resultType":"complete"/);
  t.regex(body, /"notifications":\{\}/);
});

test.serial("excludeFields inside objects and arrays of subdocuments: never shown, never written, never erased by an update", async (t) => {
  const schema = new mongoose.Schema(
    {
      title: { type: String, required: true, description: "The title" },
      meta: { internal: { type: String, description: "Kept from MCP clients" }, shown: { type: String, description: "Shown" } },
      items: { type: [{ label: { type: String, description: "Shown" }, secret: { type: String, description: "Kept from MCP clients" } }], description: "Items" },
    },
    { strict: "throw" },
  );
  const McpBox = mongoose.models.McpBox ?? mongoose.model("McpBox", schema);
  const app = await createTestApp({ port: 0 });
  app.register(
    modelRouter("/boxes", McpBox, {
      permissions: { list: [Permissions.IsAny], create: [Permissions.IsAny], read: [Permissions.IsAny], update: [Permissions.IsAny] },
      mcp: { excludeFields: ["meta.internal", "items.secret"] },
    }),
  );
  t.teardown(() => app.stop());
  const running = await app.start();
  const client = await connectMcp("pinned", new URL("/mcp", running.url));
  t.teardown(() => client.close());
  const box = await McpBox.create({ title: "a", meta: { internal: "KEPT", shown: "s" }, items: [{ label: "x", secret: "HIDDEN" }] });
  const id = String(box._id);

  const { tools } = await client.listTools();
  const create = JSON.stringify(tools.find((listed) => listed.name === "mcp_box_create")!.inputSchema);
  t.false(create.includes("secret"), "the array element's excluded field is not in the create schema");
  t.true(create.includes("label"));
  for (const answer of [await client.callTool({ name: "mcp_box_read", arguments: { id } }), await client.callTool({ name: "mcp_box_list", arguments: {} })]) {
    t.falsy(answer.isError);
    t.false(JSON.stringify(answer).includes("HIDDEN") || JSON.stringify(answer).includes("KEPT"), "excluded values never leave the server");
    t.true(JSON.stringify(answer.structuredContent).includes('"label":"x"'));
  }
  const planted = await client.callTool({ name: "mcp_box_create", arguments: { data: { title: "b", items: [{ label: "y", secret: "PLANTED" }] } } });
  t.is(errorsOf(planted)[0]?.code, McpErrors.FIELD_NOT_ACCEPTED.code);
  t.is(errorsOf(planted)[0]?.detail, "items.secret: not available to MCP clients");
  // Replacing the object or array holding an excluded field would erase it: refused.
  for (const data of [{ meta: { shown: "new" } }, { items: [{ _id: String(box.items[0]!._id), label: "y" }] }, { meta: null }]) {
    const answer = await client.callTool({ name: "mcp_box_update", arguments: { id, data } });
    t.is(errorsOf(answer)[0]?.code, McpErrors.FIELD_NOT_ACCEPTED.code, JSON.stringify(data));
  }
  t.falsy((await client.callTool({ name: "mcp_box_update", arguments: { id, data: { title: "renamed" } } })).isError);
  const stored = (await McpBox.findById(id).lean()) as { title: string; meta: { internal: string }; items: Array<{ secret: string }> };
  t.like(stored, { title: "renamed", meta: { internal: "KEPT" } });
  t.is(stored.items[0]!.secret, "HIDDEN");
  t.is(await McpBox.countDocuments(), 1, "nothing planted");
});

test.serial("a list tool's refused filter names the tool's arguments (filter.priority.gte), never REST's query keys with $", async (t) => {
  const app = await mcpTestApp(t);
  const client = await connectMcp("pinned", app.url, app.owner.token);
  t.teardown(() => client.close());
  const refused = async (filter: Record<string, unknown>) => {
    const answer = await client.callTool({ name: "mcp_note_list", arguments: { filter } });
    t.true(answer.isError);
    t.false(JSON.stringify(answer).includes("$"), JSON.stringify(answer));
    return (answer.structuredContent as { errors: Array<{ code: string; detail: string; source: { pointer: string; parameter: string }; meta: { validationErrors: string } }> }).errors[0]!;
  };
  const operand = await refused({ priority: { gte: "high" } });
  t.is(operand.code, ValidationErrors.INVALID_QUERY.code, "REST's code");
  t.is(operand.detail, "filter.priority.gte: is not a valid Number");
  t.deepEqual(operand.source, { pointer: "/filter/priority/gte", parameter: "filter" });
  t.deepEqual(JSON.parse(operand.meta.validationErrors), [{ path: "filter.priority.gte", message: "is not a valid Number" }]);
  t.is((await refused({ done: "maybe" })).detail, "filter.done: is not a valid Boolean");
  const operator = await refused({ done: { gt: true } });
  t.is(operator.code, RestErrors.OPERATOR_NOT_ALLOWED.code);
  t.is(operator.detail, "filter.done.gt: cannot use gt on this field");
  // Arguments that are not filters keep their names.
  t.is(errorsOf(await client.callTool({ name: "mcp_note_list", arguments: { limit: 100000 } }))[0]?.detail, "limit: must be an integer from 1 to 500");
});
