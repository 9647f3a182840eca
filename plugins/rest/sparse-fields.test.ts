// `?fields=` on a model router's list and read, used as a project would: through the package's
// exports, over the real HTTP stack (and the router's MCP tools), on the test database.
import test, { type ExecutionContext } from "ava";
import type { Express } from "express";
import mongoose from "mongoose";
import request from "supertest";
import { createTestApp, createUser, loginAs, stopTestDatabase } from "../../hosts/testing.js";
import { defaultPlugins, modelRouter, OwnerQueryFilter, Permissions, ValidationErrors, type ModelRouterOptions } from "../../index.js";
import { authTestApp } from "../../test/support/auth-test-app.js";
import { connectMcp } from "../../test/support/mcp-test-app.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { McpErrors } from "../mcp/index.js";

test.after.always(() => stopTestDatabase());

interface TaskFields {
  title: string;
  notes?: string;
  done?: boolean;
  fields?: string;
  internal?: string;
  ownerId?: mongoose.Types.ObjectId;
}
const schema = new mongoose.Schema<TaskFields>(
  {
    title: { type: String, required: true, description: "What to do" },
    notes: { type: String, description: "Long notes a list screen does not show" },
    done: { type: Boolean, default: false, description: "Whether it is done" },
    fields: { type: String, description: "A field that happens to share the parameter's name" },
    internal: { type: String, select: false, description: "Never answered" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Who owns it" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(defaultPlugins);
const Task = mongoose.model("SparseTask", schema);

const tokens = new TokenMap();
const own = [Permissions.IsOwner];

let paths = 0;
async function tasksApp(t: ExecutionContext, options: Partial<ModelRouterOptions<TaskFields>> = {}): Promise<{ http: Express; path: string }> {
  const path = `/tasks-${++paths}`;
  const app = (await createTestApp()).register(tokens.plugin()).register(
    modelRouter(path, Task, { permissions: { list: [Permissions.IsAuthenticated], create: [Permissions.IsAuthenticated], read: own, update: own, delete: own }, queryFilter: OwnerQueryFilter, ...options }),
  );
  const http = await app.build();
  t.teardown(() => app.stop());
  return { http, path };
}

const issuesOf = (response: request.Response) => JSON.parse(response.body.errors[0].meta.validationErrors as string) as Array<{ path: string; message: string }>;

test("?fields= answers only those fields of each record, and always its id", async (t) => {
  const { http, path } = await tasksApp(t);
  const alice = tokens.user("alice-fields");
  const created = await request(http).post(path).set("Authorization", alice.auth).send({ title: "Write", notes: "a long text", done: true }).expect(201);
  const id = created.body.data.id as string;

  const list = await request(http).get(`${path}?fields=title,done`).set("Authorization", alice.auth).expect(200);
  t.deepEqual(list.body.data, [{ id, _id: id, title: "Write", done: true }]);
  t.like(list.body, { total: 1, page: 1, more: false });
  // Repeated parameters and spaces read the same.
  const repeated = await request(http).get(`${path}?fields=title&fields=%20done`).set("Authorization", alice.auth).expect(200);
  t.deepEqual(repeated.body.data, list.body.data);

  const read = await request(http).get(`${path}/${id}?fields=notes`).set("Authorization", alice.auth).expect(200);
  t.deepEqual(read.body.data, { id, _id: id, notes: "a long text" });
  // Without it, everything, as before.
  t.like((await request(http).get(`${path}/${id}`).set("Authorization", alice.auth).expect(200)).body.data, { title: "Write", notes: "a long text", done: true, created: created.body.data.created });
});

test("a name the answer cannot hold is a 400 naming it: unknown, misspelt, hidden (select: false) alike", async (t) => {
  const { http, path } = await tasksApp(t);
  const alice = tokens.user("alice-bad-fields");
  const made = (await request(http).post(path).set("Authorization", alice.auth).send({ title: "x" }).expect(201)).body.data.id as string;

  for (const query of ["fields=titel", "fields=internal", "fields=title,__v", "fields=", "fields=,"]) {
    for (const route of [path, `${path}/${made}`]) {
      const response = await request(http).get(`${route}?${query}`).set("Authorization", alice.auth);
      t.is(response.status, 400, `${route}?${query}`);
      t.is(response.body.errors[0].code, ValidationErrors.INVALID_QUERY.code);
      t.is(issuesOf(response)[0]!.path, "fields");
    }
  }
  const misspelt = await request(http).get(`${path}?fields=title,titel&limit=0`).set("Authorization", alice.auth).expect(400);
  // Reported with the list's other problems, and the unknown name quoted.
  t.deepEqual(issuesOf(misspelt).map((issue) => issue.path).sort(), ["fields", "limit"]);
  t.regex(issuesOf(misspelt).find((issue) => issue.path === "fields")!.message, /"titel": not a field/);
});

test("fields a responseHandler adds can be picked when documented; a model's own `fields` filter keeps working", async (t) => {
  const { http, path } = await tasksApp(t, {
    responseHandler: (doc) => ({ ...doc, late: false }),
    openApi: { responseProperties: { late: { type: "boolean", description: "Past its day" } } },
    queryFields: ["fields"],
  });
  const alice = tokens.user("alice-added");
  const id = (await request(http).post(path).set("Authorization", alice.auth).send({ title: "Tagged", fields: "a" }).expect(201)).body.data.id as string;
  await request(http).post(path).set("Authorization", alice.auth).send({ title: "Other", fields: "b" }).expect(201);

  t.deepEqual((await request(http).get(`${path}/${id}?fields=late`).set("Authorization", alice.auth).expect(200)).body.data, { id, _id: id, late: false });
  // Here `fields` is the model's filter, so the list keeps every field of the matching record.
  const filtered = await request(http).get(`${path}?fields=a`).set("Authorization", alice.auth).expect(200);
  t.deepEqual(filtered.body.data.map((task: { title: string }) => task.title), ["Tagged"]);
  t.is(filtered.body.data[0].late, false);

  const { body: document } = await request(http).get("/openapi.json").expect(200);
  t.false(document.paths[path].get.parameters.some((parameter: { name: string; style?: string }) => parameter.name === "fields" && parameter.style === "form"));
  const readFields = document.paths[`${path}/{id}`].get.parameters.find((parameter: { name: string }) => parameter.name === "fields");
  t.like(readFields, { in: "query", style: "form", explode: false });
  t.true(readFields.schema.items.enum.includes("late"));
  t.false(readFields.schema.items.enum.includes("internal"));
});

test("MCP: the list and read tools take fields as an array; an excluded field is refused as such", async (t) => {
  const base = await authTestApp(t, {}, {}, (app) =>
    app.register(
      modelRouter("/mcp-tasks", Task, {
        permissions: { list: [Permissions.IsAuthenticated], create: [Permissions.IsAuthenticated], read: own },
        queryFilter: OwnerQueryFilter,
        mcp: { methods: ["list", "read", "create"], excludeFields: ["notes"] },
      }),
    ),
    { port: 0 },
  );
  const running = await base.app.start();
  const account = await createUser(base.app, {});
  const client = await connectMcp("pinned", new URL("/mcp", running.url), await loginAs(base.app, account));
  t.teardown(() => client.close());
  const { tools } = await client.listTools();
  const named = (suffix: string) => tools.find((tool) => tool.name.endsWith(suffix))!;
  const advertised = (named("_list").inputSchema.properties as Record<string, { type: string; items: { enum: string[] } }>).fields!;
  t.is(advertised.type, "array");
  t.true(advertised.items.enum.includes("title"));
  t.false(advertised.items.enum.includes("notes"));
  t.truthy((named("_read").inputSchema.properties as Record<string, unknown>).fields);

  const made = await client.callTool({ name: named("_create").name, arguments: { data: { title: "Over MCP" } } });
  const id = (made.structuredContent as { data: { id: string } }).data.id;
  const listed = await client.callTool({ name: named("_list").name, arguments: { fields: ["title"] } });
  t.deepEqual((listed.structuredContent as { data: unknown[] }).data, [{ id, _id: id, title: "Over MCP" }]);
  const read = await client.callTool({ name: named("_read").name, arguments: { id, fields: ["done"] } });
  t.deepEqual((read.structuredContent as { data: unknown }).data, { id, _id: id, done: false });

  const excluded = await client.callTool({ name: named("_list").name, arguments: { fields: ["title", "notes"] } });
  t.true(excluded.isError);
  t.is((excluded.structuredContent as { errors: Array<{ code: string }> }).errors[0]!.code, McpErrors.FIELD_NOT_ACCEPTED.code);
  const unknown = await client.callTool({ name: named("_read").name, arguments: { id, fields: ["nope"] } });
  t.true(unknown.isError);
});
