import test from "ava";
import { Validator } from "@seriousme/openapi-schema-validator";
import mongoose from "mongoose";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { buildRestApp, spec } from "../../test/support/rest-hosts.js";
import type { ModelRouterOptions } from "./model-router-options.js";
import { OwnerQueryFilter } from "./owner-query-filter.js";
import { Permissions } from "./permissions.js";
import { DateOnly, registerDateOnlyType } from "./schema/date-only.js";
import { defaultPlugins } from "./schema/default-plugins.js";

registerDateOnlyType();
test.after.always(() => stopTestDatabase());

const strict = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };
mongoose.model(
  "DocPerson",
  new mongoose.Schema({ name: { type: String, description: "Display name" } }, strict),
);
const schema = new mongoose.Schema(
  {
    title: { type: String, required: true, maxlength: 200, description: "What to do" },
    status: { type: String, enum: ["open", "closed"], default: "open", description: "Workflow state" },
    priority: { type: Number, min: 1, max: 5, description: "1 (low) to 5 (urgent)" },
    dueOn: { type: DateOnly, description: "Day it is due" },
    tags: { type: [String], description: "Labels" },
    checklist: { type: [{ text: { type: String, required: true, description: "Step" }, done: { type: Boolean, default: false, description: "Ticked" } }], description: "Steps" },
    address: { city: { type: String, description: "City" } },
    ownerId: { type: mongoose.Schema.Types.ObjectId, ref: "DocPerson", description: "Owner" },
    assigneeId: { type: mongoose.Schema.Types.ObjectId, ref: "DocPerson", description: "Assignee" },
    hidden: { type: String, select: false, description: "Never shown" },
  },
  strict,
);
schema.plugin(defaultPlugins);
const DocTodo = mongoose.model("DocTodo", schema);

const options: ModelRouterOptions<mongoose.InferSchemaType<typeof schema>> = {
  permissions: {
    list: [Permissions.IsAuthenticatedOrReadOnly],
    create: [Permissions.IsAuthenticated],
    read: [Permissions.IsAny],
    update: [Permissions.IsOwner],
    delete: [Permissions.IsAdmin],
  },
  queryFilter: OwnerQueryFilter,
  queryFields: ["status", "dueOn", "tags"],
  populatePaths: [{ path: "assigneeId", fields: ["name"] }],
};

async function openApiDocument(t: import("ava").ExecutionContext, routers = [spec("/doc-todos", DocTodo, options)]) {
  const app = await buildRestApp("SvcApp", routers);
  t.teardown(() => app.stop());
  const response = await request(app.http).get("/openapi.json").expect(200);
  return response.body as { paths: Record<string, Record<string, { security?: unknown; parameters?: Array<{ name: string }> }>>; components: { schemas: Record<string, unknown> } };
}

test("the generated document validates as OpenAPI 3.1", async (t) => {
  const document = await openApiDocument(t);
  const result = await new Validator().validate(document as never);
  t.deepEqual(result.errors ?? [], []);
  t.true(result.valid);
});

test("snapshot of one model's paths and schemas", async (t) => {
  const document = await openApiDocument(t);
  t.snapshot(document.paths["/doc-todos"], "GET and POST /doc-todos");
  t.snapshot(document.paths["/doc-todos/{id}"], "GET, PATCH and DELETE /doc-todos/{id}");
  t.snapshot(
    { DocTodo: document.components.schemas.DocTodo, DocTodoCreate: document.components.schemas.DocTodoCreate, DocTodoUpdate: document.components.schemas.DocTodoUpdate },
    "component schemas",
  );
});

test("security follows the permission checks; closed methods are left out", async (t) => {
  const closed = spec("/doc-closed", DocTodo, { permissions: { read: [Permissions.IsAny] } });
  const document = await openApiDocument(t, [spec("/doc-todos", DocTodo, options), closed]);
  const item = document.paths["/doc-todos/{id}"]!;
  t.deepEqual(item.get!.security, [{}, { bearerAuth: [] }]);
  t.deepEqual(item.patch!.security, [{ bearerAuth: [] }]);
  t.deepEqual(Object.keys(document.paths["/doc-closed/{id}"]!), ["get"]);
  t.false("/doc-closed" in document.paths);
  const listParameters = document.paths["/doc-todos"]!.get!.parameters!.map((parameter) => parameter.name);
  t.deepEqual(listParameters, ["limit", "page", "sort", "status", "dueOn", "tags", "fields"]);
});

type Operation = { operationId?: string; tags?: string[]; description?: string; parameters?: Parameter[] };
type Parameter = { name: string; in: string; style?: string; explode?: boolean; description?: string; schema?: { type?: string; anyOf?: unknown; properties?: Record<string, { type?: string; description?: string }> } };
type FullDocument = { paths: Record<string, Record<string, Operation>>; tags?: Array<{ name: string; description?: string }> };

async function fullDocument(t: import("ava").ExecutionContext, routers: ReturnType<typeof spec>[]) {
  const app = await buildRestApp("SvcApp", routers);
  t.teardown(() => app.stop());
  const response = await request(app.http).get("/openapi.json").expect(200);
  return { app, document: response.body as FullDocument };
}

const operationIdsOf = (document: FullDocument, ...paths: string[]) =>
  paths.flatMap((path) => Object.entries(document.paths[path] ?? {}).map(([method, operation]) => `${method} ${operation.operationId}`));

test("operation ids: the plural lists, the singular names one record", async (t) => {
  const document = await openApiDocument(t);
  t.deepEqual(operationIdsOf(document as unknown as FullDocument, "/doc-todos", "/doc-todos/{id}"), [
    "get listDocTodos",
    "post createDocTodo",
    "get readDocTodo",
    "patch updateDocTodo",
    "delete deleteDocTodo",
  ]);
});

test("a second router of the same model suffixes its ids with its path; openApi names override", async (t) => {
  const second = spec("/admin/doc-todos", DocTodo, { permissions: { list: [Permissions.IsAdmin], read: [Permissions.IsAdmin] } });
  const renamed = spec("/doc-tasks", DocTodo, { permissions: { list: [Permissions.IsAny], read: [Permissions.IsAny] }, openApi: { singular: "Task" } });
  const { document } = await fullDocument(t, [spec("/doc-todos", DocTodo, options), second, renamed]);
  t.deepEqual(operationIdsOf(document, "/admin/doc-todos", "/admin/doc-todos/{id}"), ["get listDocTodos_AdminDocTodos", "get readDocTodo_AdminDocTodos"]);
  t.deepEqual(operationIdsOf(document, "/doc-tasks", "/doc-tasks/{id}"), ["get listTasks", "get readTask"]);
});

test("every operation carries the router's one tag, declared once with a description", async (t) => {
  const tagged = spec("/doc-tagged", DocTodo, { permissions: { read: [Permissions.IsAny] }, openApi: { tag: "todos", tagDescription: "Things to do", plural: "TaggedTodos", singular: "TaggedTodo" } });
  const { document } = await fullDocument(t, [spec("/doc-todos", DocTodo, options), tagged]);
  // Every app's document also declares the probes' tag (GET /healthz, /readyz).
  t.deepEqual(
    (document.tags ?? []).filter((tag) => tag.name !== "probes"),
    [
      { name: "DocTodo", description: "DocTodo records" },
      { name: "todos", description: "Things to do" },
    ],
  );
  t.deepEqual(document.paths["/doc-tagged/{id}"]!.get!.tags, ["todos"]);
  for (const operation of Object.values(document.paths["/doc-todos"]!)) t.deepEqual(operation.tags, ["DocTodo"]);
});

const DocFilterable = mongoose.model(
  "DocFilterable",
  new mongoose.Schema(
    {
      title: { type: String, description: "Title" },
      done: { type: Boolean, description: "Finished" },
      rank: { type: Number, min: 1, max: 5, description: "Rank" },
      dueOn: { type: DateOnly, description: "Due day" },
      labels: { type: [String], description: "Labels" },
      ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Owner" },
    },
    strict,
  ),
);
const filterable = spec("/doc-filterables", DocFilterable, {
  permissions: { list: [Permissions.IsAny] },
  queryFields: ["title", "done", "rank", "dueOn", "labels", "ownerId", "id"],
});

test("each list filter is one plain deepObject parameter whose operators are those its type accepts", async (t) => {
  const { document } = await fullDocument(t, [filterable]);
  const parameters = document.paths["/doc-filterables"]!.get!.parameters!;
  const filters = Object.fromEntries(parameters.filter((parameter) => parameter.style === "deepObject").map((parameter) => [parameter.name, parameter]));
  t.deepEqual(Object.keys(filters), ["title", "done", "rank", "dueOn", "labels", "ownerId", "id"]);
  const operators = (name: string) => Object.keys(filters[name]!.schema!.properties!);
  t.deepEqual(operators("title"), ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$regex"]);
  t.deepEqual(operators("done"), ["$eq", "$ne", "$in", "$nin", "$exists"]);
  t.deepEqual(operators("rank"), ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists"]);
  t.deepEqual(operators("labels"), operators("title"), "a list of text filters like text");
  for (const filter of Object.values(filters)) {
    t.true(filter.explode);
    t.is(filter.schema!.type, "object");
    t.is(filter.schema!.anyOf, undefined, "no anyOf: Swagger UI renders one plain object");
    // Without it Swagger UI's "Try it out" pre-fills every operator at once, which answers 400.
    t.deepEqual((filter as { example?: unknown }).example, {}, `${filter.name} pre-fills no filter`);
    for (const [op, schema] of Object.entries(filter.schema!.properties!)) t.truthy(schema.description, `${filter.name}[${op}] says what it does`);
  }
});

test("every example a filter's description gives is accepted by the list route", async (t) => {
  const { app, document } = await fullDocument(t, [filterable]);
  const operation = document.paths["/doc-filterables"]!.get!;
  const examples = operation.parameters!.flatMap((parameter) => {
    const text = /Examples: (.*)\.$/.exec(parameter.description ?? "")?.[1] ?? "";
    return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
  });
  t.true(examples.length >= 7 * 3);
  for (const example of examples) {
    const response = await request(app.http).get(`/doc-filterables?${example}`);
    t.is(response.status, 200, `${example}: ${JSON.stringify(response.body)}`);
  }
});
