import test from "ava";
import mongoose from "mongoose";
import { stopTestDatabase } from "../../hosts/testing.js";
import { as, buildRestApp, HOSTS, spec, type HostKind } from "../../test/support/rest-hosts.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { RestErrors } from "./errors.js";
import type { ModelRouterOptions } from "./model-router-options.js";
import { OwnerQueryFilter } from "./owner-query-filter.js";
import { Permissions } from "./permissions.js";
import { DateOnly, registerDateOnlyType } from "./schema/date-only.js";
import { defaultPlugins } from "./schema/default-plugins.js";
import { ValidationErrors } from "../validation/index.js";

registerDateOnlyType();
test.after.always(() => stopTestDatabase());

const strict = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };
const { ObjectId } = mongoose.Schema.Types;

const Person = mongoose.model(
  "RouterPerson",
  new mongoose.Schema(
    {
      name: { type: String, description: "Display name" },
      email: { type: String, description: "Private email" },
      passwordHash: { type: String, select: false, description: "Never shown" },
    },
    strict,
  ),
);

interface TodoFields {
  title: string;
  done?: boolean;
  priority?: number;
  status?: "open" | "blocked" | "closed";
  dueOn?: Date;
  tags?: string[];
  ownerId?: mongoose.Types.ObjectId;
  assigneeId?: mongoose.Types.ObjectId;
  secret?: string;
}

const todoSchema = new mongoose.Schema<TodoFields>(
  {
    title: { type: String, required: true, maxlength: 200, description: "What to do" },
    done: { type: Boolean, default: false, description: "Whether it is done" },
    priority: { type: Number, min: 1, max: 5, description: "1 (low) to 5 (urgent)" },
    status: { type: String, enum: ["open", "blocked", "closed"], default: "open", description: "Workflow state" },
    dueOn: { type: DateOnly, description: "Day it is due" },
    tags: { type: [String], description: "Free-form labels" },
    ownerId: { type: ObjectId, ref: "RouterPerson", description: "Who owns it" },
    assigneeId: { type: ObjectId, ref: "RouterPerson", description: "Who works on it" },
    secret: { type: String, select: false, description: "Internal note" },
  },
  strict,
);
todoSchema.plugin(defaultPlugins);
const Todo = mongoose.model("RouterTodo", todoSchema);

const owner = [Permissions.IsOwner];
const baseOptions: ModelRouterOptions<TodoFields> = {
  permissions: { list: owner, create: owner, read: owner, update: owner, delete: owner },
  queryFilter: OwnerQueryFilter,
  queryFields: ["done", "priority", "status", "dueOn", "tags", "title", "assigneeId"],
};

const tokens = new TokenMap();

async function appFor(t: { teardown(fn: () => Promise<void>): void }, host: HostKind, options: Partial<ModelRouterOptions<TodoFields>> = {}, path = "/todos") {
  const app = await buildRestApp(host, [spec(path, Todo, { ...baseOptions, ...options })], [tokens.plugin()]);
  t.teardown(() => app.stop());
  return app.http;
}

for (const host of HOSTS) {
  test(`${host}: create answers 201 with the record in data, owned by the caller`, async (t) => {
    const http = await appFor(t, host);
    const alice = tokens.user(`alice-${host}`);
    const response = await as(http, alice.auth).post("/todos", { title: "Write docs", priority: 3, tags: ["docs"] }).expect(201);
    const data = response.body.data;
    t.is(data.title, "Write docs");
    t.is(data.ownerId, alice.user.id);
    t.is(data.id, data._id);
    t.is(data.done, false);
    t.is(data.deleted, false);
    t.truthy(data.created);
    t.is(data.created, data.updated);
    t.false("__v" in data);
    const stored = await Todo.findById(data.id).lean();
    t.is(String(stored?.ownerId), alice.user.id);
  });

  test(`${host}: read, update and delete one record`, async (t) => {
    const http = await appFor(t, host);
    const alice = tokens.user(`reader-${host}`);
    const api = as(http, alice.auth);
    const { body: created } = await api.post("/todos", { title: "Read me", dueOn: "2024-05-01T17:30:00Z" }).expect(201);
    t.is(created.data.dueOn, "2024-05-01T00:00:00.000Z");
    const id = created.data.id;

    const read = await api.get(`/todos/${id}`).expect(200);
    t.is(read.body.data.title, "Read me");
    t.is(read.body.data.id, id);
    t.is(read.body.data.dueOn, "2024-05-01T00:00:00.000Z");
    t.false("__v" in read.body.data);

    const updated = await api.patch(`/todos/${id}`, { done: true, priority: null }).expect(200);
    t.is(updated.body.data.done, true);
    t.is(updated.body.data.title, "Read me");
    t.true(new Date(updated.body.data.updated) >= new Date(created.data.updated));

    await api.delete(`/todos/${id}`).expect(204);
    const gone = await api.get(`/todos/${id}`).expect(404);
    t.is(gone.body.errors[0].code, RestErrors.NOT_FOUND.code);
    // Soft delete: the record stays, marked deleted, hidden from lists.
    const stored = await Todo.collection.findOne({ _id: new mongoose.Types.ObjectId(id as string) });
    t.is(stored?.deleted, true);
    const list = await api.get("/todos").expect(200);
    t.false(list.body.data.some((todo: { id: string }) => todo.id === id));
  });

  test(`${host}: PUT answers 405 with Allow`, async (t) => {
    const http = await appFor(t, host);
    const alice = tokens.user(`put-${host}`);
    const item = await as(http, alice.auth).put(`/todos/${new mongoose.Types.ObjectId().toHexString()}`, { title: "x" }).expect(405);
    t.is(item.headers.allow, "GET, PATCH, DELETE");
    t.is(item.body.errors[0].code, RestErrors.METHOD_NOT_ALLOWED.code);
    const collection = await as(http, alice.auth).put("/todos", { title: "x" }).expect(405);
    t.is(collection.headers.allow, "GET, POST");
  });

  test(`${host}: list pages with {data, limit, page, more, total}`, async (t) => {
    const http = await appFor(t, host);
    const alice = tokens.user(`pager-${host}`);
    const api = as(http, alice.auth);
    for (let index = 1; index <= 5; index++) await api.post("/todos", { title: `Task ${index}`, priority: index }).expect(201);

    const first = await api.get("/todos?limit=2&sort=priority").expect(200);
    t.deepEqual(
      { limit: first.body.limit, page: first.body.page, more: first.body.more, total: first.body.total },
      { limit: 2, page: 1, more: true, total: 5 },
    );
    t.deepEqual(first.body.data.map((todo: { priority: number }) => todo.priority), [1, 2]);
    const last = await api.get("/todos?limit=2&page=3&sort=priority").expect(200);
    t.deepEqual(last.body.data.map((todo: { priority: number }) => todo.priority), [5]);
    t.false(last.body.more);
    const beyond = await api.get("/todos?limit=2&page=4").expect(200);
    t.deepEqual(beyond.body.data, []);
    t.is(beyond.body.total, 5);

    const descending = await api.get("/todos?sort=-priority").expect(200);
    t.deepEqual(descending.body.data.map((todo: { priority: number }) => todo.priority), [5, 4, 3, 2, 1]);
    const byDefault = await api.get("/todos").expect(200);
    t.is(byDefault.body.limit, 100);
    // Default order: newest first.
    t.is(byDefault.body.data[0].title, "Task 5");
  });
}

test("list filters: equality, allowlisted operators, arrays, dates and literal regex", async (t) => {
  const http = await appFor(t, "SvcApp");
  const alice = tokens.user("filterer");
  const api = as(http, alice.auth);
  const assignee = new mongoose.Types.ObjectId().toHexString();
  await api.post("/todos", { title: "Write report", priority: 1, status: "open", tags: ["work"], dueOn: "2024-05-01", assigneeId: assignee }).expect(201);
  await api.post("/todos", { title: "Buy milk", priority: 3, status: "blocked", tags: ["home", "shop"], dueOn: "2024-06-01" }).expect(201);
  await api.post("/todos", { title: "Rewrite (v2) spec?", priority: 5, status: "closed", done: true, tags: ["work"] }).expect(201);

  const titles = async (query: string) => {
    const response = await api.get(`/todos?${query}&sort=priority`).expect(200);
    return response.body.data.map((todo: { title: string }) => todo.title);
  };
  t.deepEqual(await titles("done=true"), ["Rewrite (v2) spec?"]);
  t.deepEqual(await titles("priority[$gte]=3"), ["Buy milk", "Rewrite (v2) spec?"]);
  t.deepEqual(await titles("priority[$gt]=1&priority[$lt]=5"), ["Buy milk"]);
  t.deepEqual(await titles("priority[$ne]=3"), ["Write report", "Rewrite (v2) spec?"]);
  t.deepEqual(await titles("status[$in]=open,blocked"), ["Write report", "Buy milk"]);
  t.deepEqual(await titles("status[$in]=open&status[$in]=closed"), ["Write report", "Rewrite (v2) spec?"]);
  t.deepEqual(await titles("status[$nin]=open"), ["Buy milk", "Rewrite (v2) spec?"]);
  t.deepEqual(await titles("tags=work"), ["Write report", "Rewrite (v2) spec?"]);
  t.deepEqual(await titles("dueOn[$lt]=2024-05-15"), ["Write report"]);
  t.deepEqual(await titles("dueOn[$exists]=false"), ["Rewrite (v2) spec?"]);
  t.deepEqual(await titles(`assigneeId=${assignee}`), ["Write report"]);
  t.deepEqual(await titles("title[$regex]=rite"), ["Write report", "Rewrite (v2) spec?"]);
  t.deepEqual(await titles("title[$regex]=^Wri"), ["Write report"]);
  t.deepEqual(await titles(`title[$regex]=${encodeURIComponent("/^buy/i")}`), ["Buy milk"]);
  // Regex metacharacters are literal text, never a pattern.
  t.deepEqual(await titles(`title[$regex]=${encodeURIComponent("(v2) spec?")}`), ["Rewrite (v2) spec?"]);
  t.deepEqual(await titles(`title[$regex]=${encodeURIComponent(".*")}`), []);
});

test("per-router defaultLimit and maxLimit", async (t) => {
  const http = await appFor(t, "SvcApp", { defaultLimit: 2, maxLimit: 3 });
  const alice = tokens.user("limited");
  const api = as(http, alice.auth);
  for (let index = 0; index < 4; index++) await api.post("/todos", { title: `L${index}` }).expect(201);
  const page = await api.get("/todos").expect(200);
  t.is(page.body.limit, 2);
  t.is(page.body.data.length, 2);
  t.true(page.body.more);
  await api.get("/todos?limit=3").expect(200);
  const tooMany = await api.get("/todos?limit=4").expect(400);
  t.is(tooMany.body.errors[0].code, ValidationErrors.INVALID_QUERY.code);
});

test("a router's default sort applies when the client sends none", async (t) => {
  const http = await appFor(t, "SvcApp", { sort: "title" });
  const alice = tokens.user("sorted");
  const api = as(http, alice.auth);
  for (const title of ["b", "c", "a"]) await api.post("/todos", { title }).expect(201);
  const page = await api.get("/todos").expect(200);
  t.deepEqual(page.body.data.map((todo: { title: string }) => todo.title), ["a", "b", "c"]);
});

test("a queryFilter returning null answers an empty list", async (t) => {
  const http = await appFor(t, "SvcApp", { queryFilter: () => null });
  const alice = tokens.user("nobody-sees");
  await as(http, alice.auth).post("/todos", { title: "hidden" }).expect(201);
  const page = await as(http, alice.auth).get("/todos").expect(200);
  t.deepEqual(page.body, { data: [], limit: 100, page: 1, more: false, total: 0 });
});

test("populatePaths includes only the declared fields of the referenced record", async (t) => {
  const http = await appFor(t, "SvcApp", { populatePaths: [{ path: "assigneeId", fields: ["name"] }] });
  const alice = tokens.user("populater");
  const bob = await Person.create({ name: "Bob", email: "bob@private.test", passwordHash: "hash" });
  const created = await as(http, alice.auth).post("/todos", { title: "Pair", assigneeId: bob.id }).expect(201);
  t.deepEqual(created.body.data.assigneeId, { _id: bob.id, name: "Bob" });
  const read = await as(http, alice.auth).get(`/todos/${created.body.data.id}`).expect(200);
  t.deepEqual(read.body.data.assigneeId, { _id: bob.id, name: "Bob" });
  const list = await as(http, alice.auth).get("/todos").expect(200);
  t.deepEqual(list.body.data[0].assigneeId, { _id: bob.id, name: "Bob" });
  const patched = await as(http, alice.auth).patch(`/todos/${created.body.data.id}`, { title: "Pair up" }).expect(200);
  t.deepEqual(patched.body.data.assigneeId, { _id: bob.id, name: "Bob" });
});

test("select: false fields never appear in responses, even when set", async (t) => {
  const http = await appFor(t, "SvcApp", {
    preCreate: (body) => ({ ...body, secret: "classified" }),
  });
  const alice = tokens.user("secretive");
  const created = await as(http, alice.auth).post("/todos", { title: "Hide" }).expect(201);
  t.false("secret" in created.body.data);
  const read = await as(http, alice.auth).get(`/todos/${created.body.data.id}`).expect(200);
  t.false("secret" in read.body.data);
  const stored = await Todo.findById(created.body.data.id).select("+secret").lean();
  t.is(stored?.secret, "classified");
});

test("a hard delete removes records of models without isDeletedPlugin", async (t) => {
  const schema = new mongoose.Schema({ label: { type: String, description: "A label" } }, strict);
  const Note = mongoose.model("RouterHardNote", schema);
  const app = await buildRestApp("SvcApp", [spec("/notes", Note, { permissions: { create: [Permissions.IsAny], delete: [Permissions.IsAny] } })]);
  t.teardown(() => app.stop());
  const created = await as(app.http).post("/notes", { label: "x" }).expect(201);
  await as(app.http).delete(`/notes/${created.body.data.id}`).expect(204);
  t.is(await Note.countDocuments({ _id: created.body.data.id }), 0);
});

test("string-keyed models take their id on create and accept non-ObjectId ids", async (t) => {
  const schema = new mongoose.Schema({ _id: { type: String, description: "Client-minted id" }, label: { type: String, description: "A label" } }, strict);
  const Entry = mongoose.model("RouterStringKeyed", schema);
  const any = [Permissions.IsAny];
  const app = await buildRestApp("SvcApp", [spec("/entries", Entry, { permissions: { create: any, read: any } })]);
  t.teardown(() => app.stop());
  const created = await as(app.http).post("/entries", { _id: "a7f1c2de-0000-4000-8000-000000000001", label: "x" }).expect(201);
  t.is(created.body.data.id, "a7f1c2de-0000-4000-8000-000000000001");
  await as(app.http).get("/entries/a7f1c2de-0000-4000-8000-000000000001").expect(200);
  await as(app.http).get(`/entries/${encodeURIComponent("bad id with spaces")}`).expect(404);
  // With no default, the id is the client's to send: required, a 400 (not a 500) without it.
  const missing = await as(app.http).post("/entries", { label: "no id" }).expect(400);
  t.is(missing.body.errors[0].code, ValidationErrors.INVALID_BODY.code);
  t.regex(missing.body.errors[0].detail, /_id/);
  const openapi = await as(app.http).get("/openapi.json").expect(200);
  const create = Object.values(openapi.body.components.schemas as Record<string, { required?: string[]; properties?: Record<string, unknown> }>).find((schema) => schema.properties?._id && schema.properties.label && !schema.properties.id);
  t.true(create?.required?.includes("_id"), "documented as required on create");
});
