import test from "ava";
import { execFile } from "node:child_process";
import net from "node:net";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { tempDir } from "../../../test/support/temp-dir.js";
import { generateSyncHooks, type OpenApiDocument } from "./index.js";
import { typecheckHooks } from "./test-support/typecheck-hooks.js";

// svc-syncdb-codegen: the output for a fixture document (golden), that output under tsc --strict,
// and the command's misuses, each through the real executable.

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const FIXTURE = path.join(here, "fixtures/synced-api.json");
const run = promisify(execFile);

/** Runs the command as a user would (through tsx: the repository is not built). */
async function codegen(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import=tsx", path.join(root, "hosts/svc-syncdb-codegen.ts"), ...args], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const fixture = async () => JSON.parse(await readFile(FIXTURE, "utf8")) as OpenApiDocument;

test("the fixture document gives the golden hooks file", async (t) => {
  const golden = await readFile(path.join(here, "fixtures/synced-api.golden.txt"), "utf8");
  t.is(generateSyncHooks(await fixture(), { source: "fixtures/synced-api.json" }), golden);
});

test("the command writes the file; it passes tsc --strict and its hooks are typed by the schemas", async (t) => {
  const dir = tempDir(t, "svc-codegen-");
  const out = path.join(dir, "sync-hooks.ts");
  const result = await codegen(["--schema", FIXTURE, "--out", out]);
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /wrote .*sync-hooks\.ts/);
  const source = await readFile(out, "utf8");
  t.is(source, generateSyncHooks(await fixture(), { source: FIXTURE }));
  const usage = `import { SYNC_COLLECTIONS, useCreateTodo, useTodo, useTodoList, useUpdateTodo, type SyncCollection, type Todo } from "./sync-hooks.js";
export function useExample(id: string): string {
  const list: readonly { data: Readonly<Todo> }[] = useTodoList({ filter: { done: false } });
  const one = useTodo(id);
  const [create] = useCreateTodo();
  const [update] = useUpdateTodo({ retries: 3 });
  const { id: created } = create({ title: "Milk", tags: [{ label: "shop", color: "red" }] });
  update(created, { done: null });
  // @ts-expect-error title is required to create
  create({ done: true });
  // @ts-expect-error done is a boolean
  update(created, { done: "yes" });
  // @ts-expect-error not a synced collection
  const wrong: SyncCollection = "users";
  const collections: readonly SyncCollection[] = SYNC_COLLECTIONS;
  return \`\${list.length} \${one?.data.title ?? ""} \${collections.join()} \${wrong}\`;
}
`;
  t.is(await typecheckHooks(dir, { "sync-hooks.ts": source, "usage.ts": usage }), "");
});

test("misuse exits non-zero with its message", async (t) => {
  const dir = tempDir(t, "svc-codegen-misuse-");
  const out = path.join(dir, "out.ts");
  const plain = path.join(dir, "plain.json");
  const document = await fixture();
  // The same API without extensions: the collections must be named.
  const withoutExtensions = JSON.parse(JSON.stringify(document).replaceAll('"x-svc-sync"', '"x-other"')) as OpenApiDocument;
  await writeFile(plain, JSON.stringify(withoutExtensions));
  const noItems = path.join(dir, "no-items.json");
  await writeFile(noItems, JSON.stringify({ ...document, paths: { "/todos": { get: { "x-svc-sync": { collection: "todos" }, responses: { 200: { content: { "application/json": { schema: { type: "object", properties: { data: { type: "object" } } } } } } } } } } }));
  // JSON with paths, but against OpenAPI's rules where the generator reads.
  const malformed = path.join(dir, "malformed.json");
  await writeFile(malformed, JSON.stringify({ ...document, paths: { "/todos": { get: { "x-svc-sync": { collection: 5 }, responses: document.paths!["/todos"]!.get!.responses } } } }));
  const badRequired = path.join(dir, "bad-required.json");
  const badSchemas = { ...document.components!.schemas, Todo: { type: "object", properties: { title: { type: "string" } }, required: "title" } };
  await writeFile(badRequired, JSON.stringify({ ...document, components: { schemas: badSchemas } }));
  const badConfig = path.join(dir, "config.json");
  await writeFile(badConfig, JSON.stringify({ schema: "synced-api.json", colections: ["todos"] }));
  // A server that takes the connection and never answers.
  const held = new Set<net.Socket>();
  const silent = net.createServer((socket) => void held.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  t.teardown(() => {
    held.forEach((socket) => socket.destroy());
    return new Promise<void>((resolve) => silent.close(() => resolve()));
  });
  const silentUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/openapi.json`;
  const cases: Array<[string, string[], RegExp]> = [
    ["a schema URL that never answers", ["--schema", silentUrl, "--out", out, "--timeout", "300"], /Cannot read the OpenAPI document at http:\/\/127\.0\.0\.1:\d+\/openapi\.json: no answer within 300 ms \(--timeout\)/],
    ["a --timeout that is no whole number", ["--schema", FIXTURE, "--out", out, "--timeout", "soon"], /--timeout must be a whole number of milliseconds/],
    ["no extensions and no --collections", ["--schema", plain, "--out", out], /no list operation with x-svc-sync: name the collections with --collections/],
    ["a collection whose path is missing", ["--schema", plain, "--out", out, "--collections", "todos,projects"], /no GET \/projects for collection "projects"/],
    ["a list response without a data array of items", ["--schema", noItems, "--out", out], /GET \/todos has no data array with an items schema/],
    ["no --schema", ["--out", out], /--schema <url\|file> is required/],
    ["no --out", ["--schema", FIXTURE], /--out <file> is required/],
    ["an unknown option", ["--schema", FIXTURE, "--out", out, "--colections", "todos"], /Unknown option '--colections'/],
    ["a schema file that does not exist", ["--schema", path.join(dir, "missing.json"), "--out", out], /Cannot read the OpenAPI document at .*missing\.json: ENOENT/],
    ["a schema URL nobody answers", ["--schema", "http://127.0.0.1:9/openapi.json", "--out", out], /Cannot read the OpenAPI document at http:\/\/127\.0\.0\.1:9\/openapi\.json/],
    ["a schema that is not OpenAPI", ["--schema", badConfig, "--out", out], /not an OpenAPI document/],
    ["a collection name that is no string", ["--schema", malformed, "--out", out], /SYNC_CODEGEN_SCHEMA_UNREADABLE: .*malformed\.json: not an OpenAPI document the generator can read/],
    ["a required that is no list", ["--schema", badRequired, "--out", out], /SYNC_CODEGEN_SCHEMA_UNREADABLE: .*bad-required\.json: not an OpenAPI document the generator can read/],
    ["a config with an unknown key", ["--config", badConfig], /Config .*config\.json: unknown key colections/],
    ["an --out that is a directory", ["--schema", FIXTURE, "--out", dir], /SYNC_CODEGEN_WRITE_FAILED: Cannot write .*: EISDIR/],
    ["an --out under a file", ["--schema", FIXTURE, "--out", path.join(plain, "hooks.ts")], /SYNC_CODEGEN_WRITE_FAILED: Cannot write .*plain\.json\/hooks\.ts/],
  ];
  const results = await Promise.all(cases.map(([, args]) => codegen(args)));
  for (const [index, [name, , message]] of cases.entries()) {
    t.is(results[index]!.code, 1, name);
    t.regex(results[index]!.stderr, message, name);
    t.regex(results[index]!.stderr, /^svc-syncdb-codegen: SYNC_CODEGEN_[A-Z_]+: /, `${name}: the command's prefix and the code`);
    t.notRegex(results[index]!.stderr, /\n\s+at /, `${name}: no stack trace`);
  }
  await t.throwsAsync(readFile(out, "utf8"), { code: "ENOENT" }, "nothing was written");

  // Named collections read GET /{name}, POST /{name} and PATCH /{name}/{id} without the extension.
  const config = path.join(dir, "codegen.json");
  await writeFile(config, JSON.stringify({ schema: "plain.json", out: "named.ts", collections: ["todos"], importFrom: "svc/sync/react" }));
  const named = await codegen(["--config", config]);
  t.is(named.code, 0, named.stderr);
  const source = await readFile(path.join(dir, "named.ts"), "utf8");
  t.regex(source, /export const SYNC_COLLECTIONS = \["todos"\] as const;/);
  t.regex(source, /export type TodoCreate = \{\n  title: string;/);
  t.regex(source, /export const useDeleteTodo = todoHooks\.useDelete;/);
});

test("create and update types leave out the server's bookkeeping: a sync mutation names its id apart", async (t) => {
  const document = await fixture();
  const schemas = (document as { components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> } }).components.schemas;
  // A string-keyed model with no default id: REST's create schema requires `_id`.
  schemas.TodoCreate!.properties._id = { type: "string" };
  schemas.TodoCreate!.required = ["_id", ...(schemas.TodoCreate!.required ?? [])];
  schemas.TodoUpdate!.properties.__v = { type: "number" };
  const source = generateSyncHooks(document, {});
  const block = (name: string) => /export type \w+ = \{.*?\n\};/s.exec(source.slice(source.indexOf(`export type ${name} =`)))![0];
  t.false(block("TodoCreate").includes("_id"), block("TodoCreate"));
  t.false(block("TodoUpdate").includes("__v"), block("TodoUpdate"));
  t.regex(block("TodoCreate"), /title: string;/);
});

/** A list operation of `collection` with `x-svc-sync`, its items a `$ref` to `component` (or `items` as given). */
function syncedList(collection: string, items: Record<string, unknown>, more: Record<string, unknown> = {}) {
  const page = { type: "object", properties: { data: { type: "array", items } } };
  return { get: { "x-svc-sync": { collection }, responses: { 200: { content: { "application/json": { schema: page } } } } }, ...more };
}
const ref = (component: string) => ({ $ref: `#/components/schemas/${component}` });
const withBody = (schema: unknown) => ({ requestBody: { content: { "application/json": { schema } } } });
const object = (properties: Record<string, unknown>) => ({ type: "object", properties });

test("names that would clash are told apart: entities, their hooks, components, and the module's own names", async (t) => {
  const document = {
    openapi: "3.1.0",
    paths: {
      // `TodoList`'s read hook and `Todo`'s list hook are both `useTodoList`.
      "/todos": syncedList("todos", ref("Todo")),
      "/lists": syncedList("lists", ref("TodoList")),
      // The module declares SyncCollection and imports CollectionHooks; `records` is `Record`.
      "/collections": syncedList("collections", ref("SyncCollection")),
      "/hooks": syncedList("hooks", ref("CollectionHooks")),
      "/records": syncedList("records", object({ at: { type: "string" }, meta: { type: "object", additionalProperties: { type: "number" } } })),
    },
    components: {
      schemas: {
        // `todo-item` and `TodoItem` are both `TodoItemSchema`.
        Todo: object({ first: ref("todo-item"), second: ref("TodoItem"), meta: { type: "object", additionalProperties: { type: "string" } } }),
        TodoList: object({ name: { type: "string" } }),
        "todo-item": object({ a: { type: "string" } }),
        TodoItem: object({ b: { type: "number" } }),
        SyncCollection: object({ c: { type: "string" } }),
        CollectionHooks: object({ d: { type: "string" } }),
      },
    },
  } as OpenApiDocument;
  const source = generateSyncHooks(document, {});
  const declared = [...source.matchAll(/^export (?:type|const) (\w+)/gm)].map((match) => match[1]!);
  t.deepEqual(declared.filter((name, index) => declared.indexOf(name) !== index), [], "no name is declared twice");
  const dir = tempDir(t, "svc-codegen-names-");
  t.is(await typecheckHooks(dir, { "sync-hooks.ts": source }), "", source);
});

test("create and update types are object types even when the schema allows null or is no object: the file passes tsc", async (t) => {
  const entity = object({ title: { type: "string" } });
  const document = {
    openapi: "3.1.0",
    paths: {
      // Nullable in both spellings, directly and behind a $ref: the data of a mutation is never null.
      "/a": syncedList("a", entity, { post: withBody({ ...object({ title: { type: "string" } }), nullable: true, required: ["title"] }) }),
      "/a/{id}": { patch: withBody(ref("NullablePatch")) },
      "/b": syncedList("b", entity, { post: withBody({ ...object({ title: { type: "string" } }), type: ["object", "null"] }) }),
      "/b/{id}": { patch: withBody({ anyOf: [object({ title: { type: "string" } }), object({ done: { type: "boolean" } }), { type: "null" }] }) },
      // No object at all: the entity's fields stand in.
      "/c": syncedList("c", entity, { post: withBody({ type: "string" }) }),
      "/c/{id}": { patch: withBody(ref("Loop")) },
    },
    components: {
      schemas: {
        NullablePatch: { ...object({ title: { type: "string" } }), nullable: true },
        Loop: ref("Loop"),
      },
    },
  } as OpenApiDocument;
  const source = generateSyncHooks(document, {});
  const typeOf = (name: string) => /^export type \w+ = (.*?);\n(?:\n|$)/s.exec(source.slice(source.indexOf(`export type ${name} =`)))![1];
  t.is(typeOf("ACreate"), "{\n  title: string;\n}");
  t.is(typeOf("AUpdate"), "{\n  title?: string;\n}");
  t.is(typeOf("BCreate"), "{\n  title?: string;\n}");
  t.is(typeOf("BUpdate"), "{\n  title?: string;\n} | {\n  done?: boolean;\n}");
  t.is(typeOf("CCreate"), 'Partial<Omit<C, "id">>');
  t.is(typeOf("CUpdate"), 'Partial<Omit<C, "id">>');
  const usage = `import { useCreateA, useUpdateB } from "./sync-hooks.js";
export function useExample(): void {
  const [create] = useCreateA();
  const [update] = useUpdateB();
  create({ title: "Milk" });
  update("x", { done: true });
}
`;
  const dir = tempDir(t, "svc-codegen-objects-");
  t.is(await typecheckHooks(dir, { "sync-hooks.ts": source, "usage.ts": usage }), "", source);
});

test("$ref cycles: through properties and arrays they stay typed; a component defined only by itself is unknown", async (t) => {
  const document = {
    openapi: "3.1.0",
    paths: { "/nodes": syncedList("nodes", ref("Node")) },
    components: {
      schemas: {
        // Recursion through a property and an array item is a type TypeScript writes.
        Node: object({ parent: ref("Node"), children: { type: "array", items: ref("Node") }, link: ref("Link"), odd: ref("Odd"), map: ref("Map"), both: ref("Both") }),
        // A $ref to a $ref back, a union and an intersection naming themselves, a Record of itself:
        // each an alias tsc refuses.
        Link: ref("Alias"),
        Alias: ref("Link"),
        Odd: { anyOf: [{ type: "string" }, ref("Even")] },
        Even: { oneOf: [{ type: "number" }, ref("Odd")] },
        Map: { type: "object", additionalProperties: ref("Map") },
        Both: { allOf: [ref("Both"), object({ x: { type: "string" } })] },
      },
    },
  } as OpenApiDocument;
  const source = generateSyncHooks(document, {});
  t.regex(source, /export type NodeSchema = \{\n  parent\?: NodeSchema;\n  children\?: NodeSchema\[\];/);
  for (const name of ["Link", "Odd", "Map", "Both"]) t.regex(source, new RegExp(`export type ${name}Schema = unknown;`), name);
  const dir = tempDir(t, "svc-codegen-cycles-");
  t.is(await typecheckHooks(dir, { "sync-hooks.ts": source }), "", source);
});

test("a schema nested thousands of levels deep is written to a bounded depth, the rest unknown: no stack overflow, a small file tsc passes", async (t) => {
  // Built as text: JSON.stringify of such an object overflows the stack itself.
  const depth = 5000;
  const nested = (open: string, close: string) => `${open.repeat(depth)}{"type":"string"}${close.repeat(depth)}`;
  const properties = nested('{"type":"object","properties":{"x":', "}}");
  const unions = nested('{"anyOf":[{"type":"number"},', "]}");
  const items = `{"type":"object","properties":{"deep":${properties},"union":${unions}},"required":["deep"]}`;
  const document = JSON.parse(`{"openapi":"3.1.0","paths":{"/deep":{"get":{"x-svc-sync":{"collection":"deep"},"responses":{"200":{"content":{"application/json":{"schema":{"type":"object","properties":{"data":{"type":"array","items":${items}}}}}}}}},"post":{"requestBody":{"content":{"application/json":{"schema":${unions}}}}}}}}`) as OpenApiDocument;
  const source = generateSyncHooks(document, {});
  t.true(source.length < 20_000, `${source.length} characters`);
  t.regex(source, /x\?: unknown;/);
  const dir = tempDir(t, "svc-codegen-deep-");
  t.is(await typecheckHooks(dir, { "sync-hooks.ts": source }), "", source);
});

test("an empty allOf says nothing about the type: unknown, not a property without a type", async (t) => {
  const document = { openapi: "3.1.0", paths: { "/things": syncedList("things", object({ any: { allOf: [] }, name: { type: "string", allOf: [] } })) } } as OpenApiDocument;
  const source = generateSyncHooks(document, {});
  t.regex(source, /\n  any\?: unknown;\n  name\?: string;\n/);
  const dir = tempDir(t, "svc-codegen-allof-");
  t.is(await typecheckHooks(dir, { "sync-hooks.ts": source }), "", source);
});

test("a line break in the source named in the header stays inside the comment: the file passes tsc", async (t) => {
  const document = await fixture();
  const source = generateSyncHooks(document, { source: "specs/api.json\nexport const injected = 1;\u2028throw 1;" });
  const [header] = source.split("\n");
  t.is(header, "// Generated by svc-syncdb-codegen from specs/api.json export const injected = 1; throw 1;. Do not edit: run the generator again.");
  t.false(source.includes("\u2028"));
  const dir = tempDir(t, "svc-codegen-source-");
  t.is(await typecheckHooks(dir, { "sync-hooks.ts": source }), "", source);
});

test("an inline item schema names its entity by the collection's singular, English-aware: status stays Status, statuses and categories lose their plural", async (t) => {
  const document = {
    openapi: "3.1.0",
    paths: Object.fromEntries(["status", "statuses", "categories", "houses", "people"].map((collection) => [`/${collection}`, syncedList(collection, object({ name: { type: "string" } }))])),
  } as OpenApiDocument;
  const source = generateSyncHooks(document, {});
  const entities = [...source.matchAll(/^export type (\w+) = \{/gm)].map((match) => match[1]!);
  for (const name of ["Status", "Category", "House", "Person"]) t.true(entities.includes(name), `${name} in ${entities.join(", ")}`);
  t.false(entities.includes("Statu"));
  const dir = tempDir(t, "svc-codegen-singular-");
  t.is(await typecheckHooks(dir, { "sync-hooks.ts": source }), "", source);
});
