import test from "ava";
import { build } from "esbuild";
import mongoose from "mongoose";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { answerText, connectStdio } from "../test-support/docs-clients.js";
import { findDevServer, RUNTIME_TOOL_NAMES } from "./index.js";
import { runtimeClient } from "./test-support/mcp-runtime-client.js";
import { startDevServer, type DevServerProcess } from "./test-support/start-dev-server.js";

// One real development server (the demo's plugins, embedded engine persisted in a temp project,
// log files, inspector on) for the whole file: starting it is the slow part.
let dev: DevServerProcess;
const ownerId = new mongoose.Types.ObjectId();
const DEV_ENV = { NODE_ENV: "development" };

test.before(async () => {
  dev = await startDevServer(mkdtempSync(path.join(tmpdir(), "svc-mcp-runtime-")));
  const announced = await findDevServer(dev.projectDir);
  // Seed straight into the engine the server announced (the tools under test only read).
  const client = new mongoose.mongo.MongoClient(announced!.database!.uri);
  await client.connect();
  const todos = client.db(announced!.database!.name).collection("todos");
  await todos.insertMany(
    Array.from({ length: 30 }, (_, index) => ({
      title: `todo ${index}`,
      done: index % 3 === 0,
      priority: index % 5,
      tags: ["mcp", `t${index}`],
      ownerId,
      created: new Date(Date.UTC(2026, 0, index + 1)),
    })),
  );
  await client.db(announced!.database!.name).collection("blobs").insertMany(Array.from({ length: 3 }, (_, index) => ({ index, body: "x".repeat(60_000) })));
  await client.close();
});

test.after.always(async () => {
  await dev?.stop();
  if (dev) rmSync(dev.projectDir, { recursive: true, force: true });
});

test.serial("lists the eight runtime tools with their input schemas", async (t) => {
  const call = await runtimeClient(t, dev.projectDir, DEV_ENV);
  const { tools } = await call.client.listTools();
  t.deepEqual(tools.map((tool) => tool.name).sort(), [...RUNTIME_TOOL_NAMES].sort());
  for (const tool of tools) t.is(tool.inputSchema.type, "object", `${tool.name} has an object input schema`);
  t.deepEqual(tools.find((tool) => tool.name === "database_query")?.inputSchema.required, ["collection"]);
});

test.serial("application_info describes the package and the running app's plugins, models and routes", async (t) => {
  const call = await runtimeClient(t, dev.projectDir, DEV_ENV);
  const info = (await call("application_info", {})).json<{
    package: { name: string; version: string; svc: string };
    server: { pid: number; nodeEnv: string };
    plugins: string[];
    models: Array<{ modelName: string; collection: string; path: string; fields: Array<{ name: string; type: string }> }>;
    routes: Array<{ method: string; path: string }>;
  }>();
  t.deepEqual(info.package, { name: "runtime-fixture", version: "1.2.3", svc: "^0.1.0" } as typeof info.package);
  t.is(info.server.pid, dev.child.pid!);
  t.is(info.server.nodeEnv, "development");
  t.true(info.plugins.includes("auth") && info.plugins.includes("dev-runtime"));
  const todo = info.models.find((model) => model.modelName === "Todo");
  t.is(todo?.collection, "todos");
  t.is(todo?.path, "/todos");
  t.deepEqual(todo?.fields.find((field) => field.name === "title"), { name: "title", type: "String", required: true } as never);
  t.true(info.routes.some((route) => route.method === "GET" && route.path === "/todos"));
  t.true(info.routes.some((route) => route.method === "POST" && route.path === "/auth/login"));

  const routesOnly = (await call("application_info", { sections: ["routes"] })).json();
  t.deepEqual(Object.keys(routesOnly).sort(), ["routes", "server"]);
  const bad = await call("application_info", { sections: ["secrets"] });
  t.true(bad.isError);
});

test.serial("database_schema lists collections, indexes and field types inferred from the documents", async (t) => {
  const call = await runtimeClient(t, dev.projectDir, DEV_ENV);
  const schema = (await call("database_schema", {})).json<{
    database: string;
    source: string;
    collections: Array<{ name: string; count: number; indexes: Array<{ name: string; key: Record<string, number> }>; fields: Array<{ path: string; types: string[]; present: number }> }>;
  }>();
  t.is(schema.database, "svc_demo");
  t.is(schema.source, "dev-server");
  const todos = schema.collections.find((collection) => collection.name === "todos")!;
  t.is(todos.count, 30);
  t.true(todos.indexes.some((index) => index.name === "_id_"));
  const field = (name: string) => todos.fields.find((entry) => entry.path === name);
  t.deepEqual(field("title")?.types, ["string"]);
  t.deepEqual(field("priority")?.types, ["int"]);
  t.deepEqual(field("ownerId")?.types, ["objectId"]);
  t.deepEqual(field("created")?.types, ["date"]);
  t.deepEqual(field("tags")?.types, ["array"]);
  t.deepEqual(field("tags.[]")?.types, ["string"]);
  t.is(field("title")?.present, 30);

  const one = (await call("database_schema", { collection: "todos", sampleSize: 5 })).json<{ collections: Array<{ name: string; sampled: number }> }>();
  t.deepEqual(one.collections.map((collection) => [collection.name, collection.sampled]), [["todos", 5]]);
  const missing = await call("database_schema", { collection: "nope" });
  t.true(missing.isError);
  t.regex(missing.text, /^MCP_RUNTIME_INVALID_ARGUMENT/);
  t.true((await call("database_schema", { sampleSize: 5000 })).isError, "sampleSize is bounded");
});

test.serial("database_query finds and aggregates with Extended JSON values and bounded results", async (t) => {
  const call = await runtimeClient(t, dev.projectDir, DEV_ENV);
  const found = (
    await call("database_query", {
      collection: "todos",
      filter: { ownerId: { $oid: ownerId.toHexString() }, done: true },
      projection: { title: 1, ownerId: 1, _id: 0 },
      sort: { title: 1 },
      limit: 3,
    })
  ).json<{ returned: number; truncated: boolean; documents: Array<{ title: string; ownerId: { $oid: string } }> }>();
  t.is(found.returned, 3);
  t.true(found.truncated, "ten todos are done: more than the three asked for");
  t.deepEqual(found.documents[0], { title: "todo 0", ownerId: { $oid: ownerId.toHexString() } });

  const all = (await call("database_query", { collection: "todos" })).json<{ returned: number; truncated: boolean }>();
  t.deepEqual([all.returned, all.truncated], [20, true], "default limit 20");

  const grouped = (
    await call("database_query", {
      collection: "todos",
      operation: "aggregate",
      pipeline: [{ $group: { _id: "$done", n: { $sum: 1 } } }, { $sort: { _id: 1 } }],
    })
  ).json<{ documents: unknown[]; truncated: boolean }>();
  t.deepEqual(grouped.documents, [
    { _id: false, n: 20 },
    { _id: true, n: 10 },
  ]);
  t.false(grouped.truncated);

  t.true((await call("database_query", { collection: "todos", limit: 101 })).isError, "limit is capped at 100");
  const blobs = (await call("database_query", { collection: "blobs", sort: { index: 1 } })).json<{ returned: number; truncated: boolean; note: string; documents: Array<{ index: number }> }>();
  t.deepEqual([blobs.returned, blobs.truncated, blobs.documents[0]!.index], [1, true, 0], "three 60 KB documents: the answer stops before 100 000 characters");
  t.regex(blobs.note, /narrow the projection/);
  t.true((await call("database_query", { collection: "todos", operation: "aggregate" })).isError, "aggregate needs a pipeline");
  t.true((await call("database_query", { collection: "todos", filter: { ownerId: { $oid: "nope" } } })).isError, "bad Extended JSON");
});

test.serial("database_query's sort example sorts on the timestamp svc's models have", async (t) => {
  const call = await runtimeClient(t, dev.projectDir, DEV_ENV);
  const { tools } = await call.client.listTools();
  const sortDescription = (tools.find((tool) => tool.name === "database_query")?.inputSchema.properties?.sort as { description: string }).description;
  const example = JSON.parse(/e\.g\. (\{[^}]*\})/.exec(sortDescription)![1]!) as Record<string, number>;
  const [field] = Object.keys(example);
  const { models } = (await call("application_info", {})).json<{ models: Array<{ modelName: string; fields: Array<{ name: string }> }> }>();
  t.true(models.some((model) => model.fields.some((candidate) => candidate.name === field)), `the app's models have ${field}`);
  const newest = (await call("database_query", { collection: "todos", sort: example, limit: 1 })).json<{ documents: Array<{ title: string }> }>();
  t.is(newest.documents[0]?.title, "todo 29");
});

test.serial("database_query refuses $out, $merge and server-side JavaScript, and nothing is written", async (t) => {
  const call = await runtimeClient(t, dev.projectDir, DEV_ENV);
  const attempts: Array<Record<string, unknown>> = [
    { operation: "aggregate", pipeline: [{ $match: {} }, { $out: "stolen" }] },
    { operation: "aggregate", pipeline: [{ $merge: { into: "stolen" } }] },
    { operation: "aggregate", pipeline: [{ $facet: { copy: [{ $match: {} }, { $out: "stolen" }] } }] },
    { operation: "aggregate", pipeline: [{ $lookup: { from: "users", as: "u", pipeline: [{ $merge: "stolen" }] } }] },
    { filter: { $where: "this.done = true" } },
    { operation: "aggregate", pipeline: [{ $addFields: { x: { $function: { body: "function(){return 1}", args: [], lang: "js" } } } }] },
  ];
  for (const attempt of attempts) {
    const answer = await call("database_query", { collection: "todos", ...attempt });
    t.true(answer.isError, JSON.stringify(attempt));
    t.regex(answer.text, /^MCP_RUNTIME_WRITE_REFUSED/);
  }
  const schema = (await call("database_schema", {})).json<{ collections: Array<{ name: string; count: number }> }>();
  t.false(schema.collections.some((collection) => collection.name === "stolen"), "no collection was written");
  t.is(schema.collections.find((collection) => collection.name === "todos")?.count, 30);
  const unknownKey = await call("database_query", { collection: "todos", update: { $set: { done: true } } });
  t.true(unknownKey.isError, "there is no update parameter");
});

test.serial("read_logs and last_error read the app's log files", async (t) => {
  const call = await runtimeClient(t, dev.projectDir, DEV_ENV);
  const logs = (await call("read_logs", { lines: 50 })).json<{ file: string; entries: Array<{ level: string; message: string }> }>();
  t.is(logs.file, path.join(dev.projectDir, "logs", "combined.log"));
  t.true(logs.entries.some((entry) => entry.level === "info" && entry.message.startsWith("Database connected")));
  const errors = (await call("read_logs", { level: "error" })).json<{ entries: Array<{ level: string; message: string }> }>();
  t.true(errors.entries.length >= 1);
  t.true(errors.entries.every((entry) => entry.level === "error"));
  const matching = (await call("read_logs", { contains: "PAYMENT PROVIDER" })).json<{ entries: Array<{ message: string }> }>();
  t.deepEqual(matching.entries.map((entry) => entry.message), ["fixture: the payment provider refused the card"]);
  t.true((await call("read_logs", { lines: 0 })).isError);
  t.true((await call("read_logs", { level: "loud" })).isError);

  const last = (await call("last_error", {})).json<{ errors: Array<{ message: string; stack: string; timestamp: string }> }>();
  t.is(last.errors.length, 1);
  t.is(last.errors[0]!.message, "fixture: the payment provider refused the card");
  t.regex(last.errors[0]!.stack, /dev-server-main\.ts/);
  t.truthy(last.errors[0]!.timestamp);
});

test.serial("evaluate runs an expression in the dev server through its inspector, only with SVC_MCP_EVAL=1", async (t) => {
  const refused = await runtimeClient(t, dev.projectDir, DEV_ENV);
  const disabled = await refused("evaluate", { expression: "process.pid" });
  t.true(disabled.isError);
  t.regex(disabled.text, /^MCP_RUNTIME_EVAL_DISABLED/);

  const call = await runtimeClient(t, dev.projectDir, { ...DEV_ENV, SVC_MCP_EVAL: "1" });
  const pid = (await call("evaluate", { expression: "process.pid" })).json<{ value: number; type: string }>();
  t.is(pid.value, dev.child.pid!, "the expression ran in the dev server, found through .svc/dev-server.json");
  const awaited = (await call("evaluate", { expression: "await new Promise((resolve) => setTimeout(() => resolve(6 * 7), 10))" })).json<{ value: number }>();
  t.is(awaited.value, 42);
  const thrown = (await call("evaluate", { expression: "(() => { throw new Error('kaput') })()" })).json<{ exception: string }>();
  t.regex(thrown.exception, /kaput/);
});

test.serial("get_rtk_state answers the state a browser tab posted with reportClientState", async (t) => {
  const call = await runtimeClient(t, dev.projectDir, DEV_ENV);
  const before = await call("get_rtk_state", {});
  t.true(before.isError);
  t.regex(before.text, /^MCP_RUNTIME_NO_CLIENT_STATE/);

  // The browser helper as a page would bundle it.
  const bundle = await build({
    entryPoints: [path.join(path.dirname(fileURLToPath(import.meta.url)), "client-state-reporter.ts")],
    bundle: true,
    write: false,
    format: "iife",
    globalName: "svcDev",
    platform: "browser",
  });
  const browser = await chromium.launch({ executablePath: "/usr/lib/chromium/chromium" });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const { url } = (await findDevServer(dev.projectDir))!;
  await page.goto(url);
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  await page.evaluate(async () => {
    const dev = (globalThis as unknown as { svcDev: typeof import("./client-state-reporter.js") }).svcDev;
    const reporter = dev.reportClientState(() => ({ todos: { status: "fulfilled", ids: ["a", "b"] } }), { clientId: "tab-1", intervalMs: 0 });
    await reporter.report();
  });
  const state = (await call("get_rtk_state", {})).json<{ clients: Array<{ clientId: string; url: string; state: unknown }> }>();
  t.is(state.clients.length, 1);
  t.is(state.clients[0]!.clientId, "tab-1");
  t.is(state.clients[0]!.url, `${url}/`);
  t.deepEqual(state.clients[0]!.state, { todos: { status: "fulfilled", ids: ["a", "b"] } });
  const one = (await call("get_rtk_state", { clientId: "tab-1" })).json<{ clients: unknown[] }>();
  t.is(one.clients.length, 1);
  t.true((await call("get_rtk_state", { clientId: "tab-2" })).isError, "no report from that client");
  t.true((await call("get_rtk_state", { clientId: "../etc" })).isError, "client ids are validated");

  // The channel refuses what is not a report, and never answers a 500.
  const refused = await fetch(`${url}/__svc/dev/client-state`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ clientId: "x y" }) });
  t.is(refused.status, 400);
  t.is(((await refused.json()) as { errors: Array<{ code: string }> }).errors[0]!.code, "HTTP_BAD_REQUEST");
});

test.serial("navigate loads a page of the app in chromium and reports what it shows", async (t) => {
  const call = await runtimeClient(t, dev.projectDir, DEV_ENV);
  const answer = await call("navigate", { path: "/", screenshot: true });
  t.false(answer.isError, answer.text);
  const report = JSON.parse(answer.content[0]!.text!) as { url: string; status: number; text: string; pageErrors: string[] };
  const { url } = (await findDevServer(dev.projectDir))!;
  t.is(report.url, `${url}/`);
  t.is(report.status, 200);
  t.regex(report.text, /svc demo/);
  t.deepEqual(report.pageErrors, []);
  const image = answer.content[1]!;
  t.is(image.type, "image");
  t.is(image.mimeType, "image/png");
  t.is(Buffer.from(image.data!, "base64").subarray(1, 4).toString(), "PNG");

  const missing = JSON.parse((await call("navigate", { path: "/nope" })).text) as { status: number };
  t.is(missing.status, 404);
  t.true((await call("navigate", { url: "file:///etc/passwd" })).isError, "only http(s) URLs");
  t.true((await call("navigate", { path: "/", url: `${url}/` })).isError, "path or url, not both");
});

test.serial("through the svc-mcp-local executable over stdio (2026 and 2025 clients) the tools read the same dev server", async (t) => {
  t.timeout(180_000);
  for (const kind of ["pinned", "sdk1"] as const) {
    const client = await connectStdio(kind, { cwd: dev.projectDir, env: { NODE_ENV: "development", SVC_MCP_EVAL: "1" } });
    t.teardown(() => client.close());
    const info = JSON.parse(answerText(await client.callTool({ name: "application_info", arguments: { sections: ["package"] } }))) as { package: { name: string } };
    t.is(info.package.name, "runtime-fixture", kind);
    const query = JSON.parse(answerText(await client.callTool({ name: "database_query", arguments: { collection: "todos", filter: { title: "todo 7" } } }))) as {
      documents: Array<{ title: string; priority: number }>;
    };
    t.deepEqual(query.documents.map((doc) => [doc.title, doc.priority]), [["todo 7", 2]], kind);
    const evaluated = JSON.parse(answerText(await client.callTool({ name: "evaluate", arguments: { expression: "process.pid" } }))) as { value: number };
    t.is(evaluated.value, dev.child.pid!, kind);
    const refused = await client.callTool({ name: "database_query", arguments: { collection: "todos", operation: "aggregate", pipeline: [{ $out: "x" }] } });
    t.true(refused.isError, kind);
    t.regex(answerText(refused), /^MCP_RUNTIME_WRITE_REFUSED/);
  }
});
