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
interface DocTodoFields {
  title: string;
  status?: string;
}
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

const options: ModelRouterOptions<DocTodoFields> = {
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
  t.deepEqual(listParameters, ["limit", "page", "sort", "status", "dueOn", "tags"]);
});
