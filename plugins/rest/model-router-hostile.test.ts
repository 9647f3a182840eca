import test from "ava";
import mongoose from "mongoose";
import { stopTestDatabase } from "../../hosts/testing.js";
import { as, buildRestApp, HOSTS, spec } from "../../test/support/rest-hosts.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { RestErrors } from "./errors.js";
import type { ModelRouterOptions } from "./model-router-options.js";
import { OwnerQueryFilter } from "./owner-query-filter.js";
import { Permissions } from "./permissions.js";
import { defaultPlugins } from "./schema/default-plugins.js";
import { configureOpenApiValidator } from "../validation/index.js";
import { ValidationErrors } from "../validation/index.js";
import { HttpErrors } from "../../kernel/http-errors.js";

test.after.always(() => stopTestDatabase());

const strict = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };

const Member = mongoose.model(
  "HostileMember",
  new mongoose.Schema(
    { name: { type: String, description: "Shown name" }, email: { type: String, description: "Private email" } },
    strict,
  ),
);

interface ItemFields {
  title: string;
  count?: number;
  meta?: unknown;
  tags?: string[];
  ownerId?: mongoose.Types.ObjectId;
  partnerId?: mongoose.Types.ObjectId;
  approved?: boolean;
  marker?: string;
}
const schema = new mongoose.Schema<ItemFields>(
  {
    title: { type: String, required: true, description: "Title" },
    count: { type: Number, description: "A number" },
    meta: { type: mongoose.Schema.Types.Mixed, description: "Free-form data" },
    tags: { type: [String], description: "Labels" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, ref: "HostileMember", description: "Owner" },
    partnerId: { type: mongoose.Schema.Types.ObjectId, ref: "HostileMember", description: "A partner" },
    approved: { type: Boolean, default: false, readOnly: true, description: "Set by moderators only" },
    marker: { type: String, description: "Test marker" },
  },
  strict,
);
schema.plugin(defaultPlugins);
const Item = mongoose.model("HostileItem", schema);

const owner = [Permissions.IsOwner];
const options: ModelRouterOptions<ItemFields> = {
  permissions: { list: owner, create: owner, read: owner, update: owner, delete: owner },
  queryFilter: OwnerQueryFilter,
  queryFields: ["title", "count", "ownerId", "tags"],
  populatePaths: [{ path: "partnerId", fields: ["name"] }],
};
const tokens = new TokenMap();

async function appFor(t: import("ava").ExecutionContext, host: (typeof HOSTS)[number] = "SvcApp", extra: Partial<ModelRouterOptions<ItemFields>> = {}, plugins = [tokens.plugin()]) {
  const app = await buildRestApp(host, [spec("/items", Item, { ...options, ...extra })], plugins);
  t.teardown(() => app.stop());
  return app.http;
}

/** SPEC §7's validation body, exactly. */
function assertValidationBody(t: import("ava").ExecutionContext, body: { errors: Array<Record<string, unknown>>; requestId?: string }, code: string) {
  t.is(body.errors.length, 1);
  const error = body.errors[0]!;
  t.is(error.status, "400");
  t.is(error.title, "Request validation failed");
  t.is(error.code, code);
  t.is(typeof error.detail, "string");
  t.is(typeof (error.source as { pointer?: unknown }).pointer, "string");
  const issues = JSON.parse((error.meta as { validationErrors: string }).validationErrors) as Array<{ path: string; message: string }>;
  t.true(issues.length > 0);
  for (const issue of issues) t.deepEqual(Object.keys(issue).sort(), ["message", "path"]);
  t.truthy(body.requestId);
}

for (const host of HOSTS) {
  test(`${host}: $-prefixed keys anywhere in a body → 400, nothing written`, async (t) => {
    const http = await appFor(t, host);
    const alice = tokens.user(`dollar-${host}`);
    const marker = `dollar-${host}`;
    for (const body of [
      { title: "a", marker, $set: { approved: true } },
      { title: "a", marker, meta: { $where: "sleep(1000)" } },
      { title: "a", marker, meta: { nested: [{ ok: 1 }, { $gt: "" }] } },
      { title: { $ne: null }, marker },
    ]) {
      const response = await as(http, alice.auth).post("/items", body).expect(400);
      assertValidationBody(t, response.body, ValidationErrors.OPERATOR_IN_BODY.code);
    }
    t.is(await Item.countDocuments({ marker }), 0);

    const created = await as(http, alice.auth).post("/items", { title: "ok", marker }).expect(201);
    const patched = await as(http, alice.auth).patch(`/items/${created.body.data.id}`, { meta: { $inc: { count: 1 } } }).expect(400);
    t.is(patched.body.errors[0].code, ValidationErrors.OPERATOR_IN_BODY.code);
    const stored = await Item.collection.findOne({ marker });
    t.is(stored?.meta, undefined);
  });

  test(`${host}: NUL characters the driver cannot write (keys at any depth, filter values) → 400, nothing written`, async (t) => {
    const http = await appFor(t, host);
    const alice = tokens.user(`nul-${host}`);
    const marker = `nul-${host}`;
    for (const [body, pointer] of [
      [{ title: "a", marker, meta: { "a\u0000b": 1 } }, "/meta/a\u0000b"],
      [{ title: "a", marker, meta: { nested: [{ ok: 1 }, { "\u0000": { x: 1 } }] } }, "/meta/nested/1/\u0000"],
      [{ title: "a", marker, "x\u0000": 1 }, "/x\u0000"],
    ] as const) {
      const response = await as(http, alice.auth).post("/items", body).expect(400);
      assertValidationBody(t, response.body, ValidationErrors.OPERATOR_IN_BODY.code);
      t.is(response.body.errors[0].source.pointer, pointer);
    }
    t.is(await Item.countDocuments({ marker }), 0);
    const created = await as(http, alice.auth).post("/items", { title: "ok", marker, meta: { kept: true } }).expect(201);
    const patched = await as(http, alice.auth).patch(`/items/${created.body.data.id}`, { meta: { deep: { "k\u0000": 1 } } }).expect(400);
    t.is(patched.body.errors[0].code, ValidationErrors.OPERATOR_IN_BODY.code);
    t.deepEqual((await Item.collection.findOne({ marker }))?.meta, { kept: true });

    for (const query of ["title[$regex]=a%00b", "title=a%00b", "title[$regex]=/a%00b/i", "title[$ne]=%00", "tags[$in]=x,a%00b", "tags=%00"]) {
      const response = await as(http, alice.auth).get(`/items?${query}`).expect(400);
      assertValidationBody(t, response.body, ValidationErrors.INVALID_QUERY.code);
      t.is(response.body.errors[0].source.parameter, query.slice(0, query.indexOf("=")), query);
    }
  });

  test(`${host}: null, "", 0 or false for an array field → 400, never coerced into null (create and PATCH)`, async (t) => {
    const http = await appFor(t, host);
    const alice = tokens.user(`array-${host}`);
    const marker = `array-${host}`;
    for (const tags of [null, "", 0, false]) {
      const response = await as(http, alice.auth).post("/items", { title: "a", marker, tags }).expect(400);
      assertValidationBody(t, response.body, ValidationErrors.INVALID_BODY.code);
      t.is(response.body.errors[0].source.pointer, "/tags", JSON.stringify(tags));
    }
    t.is(await Item.countDocuments({ marker }), 0);

    const created = await as(http, alice.auth).post("/items", { title: "a", marker, tags: ["kept"], count: 3 }).expect(201);
    const id = created.body.data.id as string;
    for (const body of [{ tags: "" }, { tags: 0 }, { tags: false }, { count: "" }]) {
      const response = await as(http, alice.auth).patch(`/items/${id}`, body).expect(400);
      assertValidationBody(t, response.body, ValidationErrors.INVALID_BODY.code);
      t.is(response.body.errors[0].source.pointer, `/${Object.keys(body)[0]}`, JSON.stringify(body));
    }
    t.like(await Item.collection.findOne({ marker }), { tags: ["kept"], count: 3 });
    // A null sent as null is a PATCH's "empty it": the array goes back to its default.
    const emptied = await as(http, alice.auth).patch(`/items/${id}`, { tags: null }).expect(200);
    t.deepEqual(emptied.body.data.tags, []);
  });

  test(`${host}: unknown fields → 400, nothing written`, async (t) => {
    const http = await appFor(t, host);
    const alice = tokens.user(`unknown-${host}`);
    const marker = `unknown-${host}`;
    const response = await as(http, alice.auth).post("/items", { title: "a", marker, colour: "red" }).expect(400);
    assertValidationBody(t, response.body, ValidationErrors.UNKNOWN_FIELD.code);
    t.is(response.body.errors[0].source.pointer, "/colour");
    const raw = `{"title":"a","marker":"${marker}","__proto__":{"approved":true}}`;
    const polluted = await as(http, alice.auth).post("/items", raw).set("Content-Type", "application/json").expect(400);
    t.is(polluted.body.errors[0].code, ValidationErrors.UNKNOWN_FIELD.code);
    t.is(await Item.countDocuments({ marker }), 0);

    const created = await as(http, alice.auth).post("/items", { title: "ok", marker }).expect(201);
    await as(http, alice.auth).patch(`/items/${created.body.data.id}`, { title: "changed", colour: "red" }).expect(400);
    const stored = await Item.collection.findOne({ marker });
    t.is(stored?.title, "ok");
    t.false("colour" in (stored ?? {}));
  });

  test(`${host}: mass assignment of owner, moderation and server fields → 400`, async (t) => {
    const http = await appFor(t, host);
    const alice = tokens.user(`mass-${host}`);
    const bob = tokens.user(`mass-bob-${host}`);
    const marker = `mass-${host}`;
    for (const body of [
      { title: "a", marker, ownerId: bob.user.id },
      { title: "a", marker, approved: true },
      { title: "a", marker, deleted: true },
      { title: "a", marker, created: "2000-01-01T00:00:00Z" },
      { title: "a", marker, _id: new mongoose.Types.ObjectId().toHexString() },
      { title: "a", marker, id: "x" },
    ]) {
      const response = await as(http, alice.auth).post("/items", body).expect(400);
      assertValidationBody(t, response.body, ValidationErrors.READ_ONLY_FIELD.code);
    }
    t.is(await Item.countDocuments({ marker }), 0);
    const created = await as(http, alice.auth).post("/items", { title: "mine", marker }).expect(201);
    for (const body of [{ ownerId: bob.user.id }, { approved: true }, { deleted: true }, { updated: "2000-01-01T00:00:00Z" }]) {
      const response = await as(http, alice.auth).patch(`/items/${created.body.data.id}`, body).expect(400);
      t.is(response.body.errors[0].code, ValidationErrors.READ_ONLY_FIELD.code);
    }
    const stored = await Item.collection.findOne({ marker });
    t.is(String(stored?.ownerId), alice.user.id);
    t.is(stored?.approved, false);
    t.is(stored?.deleted, false);
  });
}

test("bodies that are not JSON objects → 400", async (t) => {
  const http = await appFor(t);
  const alice = tokens.user("shapes");
  for (const body of ['["a"]', '"text"', "42", "null"]) {
    const response = await as(http, alice.auth).post("/items", body).set("Content-Type", "application/json");
    t.is(response.status, 400, body);
  }
  const deep = JSON.parse(`${'{"a":'.repeat(40)}1${"}".repeat(40)}`) as object;
  const response = await as(http, alice.auth).post("/items", { title: "deep", meta: deep }).expect(400);
  t.is(response.body.errors[0].code, ValidationErrors.OPERATOR_IN_BODY.code);
});

test("query operators outside the allowlist → 400 over HTTP", async (t) => {
  const http = await appFor(t);
  const alice = tokens.user("operators");
  for (const query of ["title[$where]=1", "$where=1", "count[$expr]=1", "title[$options]=i", "%24or=1", "title[%24function]=x", "count[$elemMatch]=1"]) {
    const response = await as(http, alice.auth).get(`/items?${query}`).expect(400);
    assertValidationBody(t, response.body, RestErrors.OPERATOR_NOT_ALLOWED.code);
  }
  const notFilterable = await as(http, alice.auth).get("/items?marker=x").expect(400);
  t.is(notFilterable.body.errors[0].code, RestErrors.QUERY_FIELD_NOT_ALLOWED.code);
});

test("limit and page out of range or not numbers → 400 with SPEC §7's body", async (t) => {
  const http = await appFor(t);
  const alice = tokens.user("paging");
  for (const query of ["limit=0", "limit=501", "limit=abc", "limit=-5", "limit=2.5", "page=0", "page=-1", "page=one", "limit=1&limit=2", "sort=nope"]) {
    const response = await as(http, alice.auth).get(`/items?${query}`).expect(400);
    assertValidationBody(t, response.body, ValidationErrors.INVALID_QUERY.code);
  }
  await as(http, alice.auth).get("/items?limit=500&page=1").expect(200);
});

test("malformed ObjectIds in paths → 404", async (t) => {
  const http = await appFor(t);
  const alice = tokens.user("ids");
  for (const id of ["123", "aaaaaaaaaaaa", "zzzzzzzzzzzzzzzzzzzzzzzz", "65f1c0ffee0000000000000", "65f1c0ffee000000000000011", encodeURIComponent("{\"$gt\":\"\"}")]) {
    for (const call of [as(http, alice.auth).get(`/items/${id}`), as(http, alice.auth).patch(`/items/${id}`, { title: "x" }), as(http, alice.auth).delete(`/items/${id}`)]) {
      const response = await call.expect(404);
      t.is(response.body.errors[0].code, RestErrors.NOT_FOUND.code);
    }
  }
  // Well-formed but absent → 404 too.
  await as(http, alice.auth).get(`/items/${new mongoose.Types.ObjectId().toHexString()}`).expect(404);
});

test("strict: throw violations → 400, never 500 (validation off, and through a hook)", async (t) => {
  const alice = tokens.user("strict");
  const withoutValidation = await appFor(t, "SvcApp", {}, [tokens.plugin(), configureOpenApiValidator({ validateRequests: false })]);
  const direct = await as(withoutValidation, alice.auth).post("/items", { title: "a", colour: "red" }).expect(400);
  t.is(direct.body.errors[0].code, "VALIDATION_UNKNOWN_FIELD");
  const hooked = await appFor(t, "SvcApp", { preCreate: (body) => ({ ...body, colour: "red" }) });
  const viaHook = await as(hooked, alice.auth).post("/items", { title: "a" }).expect(400);
  t.is(viaHook.body.errors[0].code, "VALIDATION_UNKNOWN_FIELD");
  const badCast = await as(withoutValidation, alice.auth).post("/items", { title: "a", count: "many" }).expect(400);
  t.is(badCast.body.errors[0].status, "400");
});

test("an owner can never read, change or delete another user's records", async (t) => {
  const http = await appFor(t);
  const alice = tokens.user("victim");
  const mallory = tokens.user("mallory");
  const marker = "victim-record";
  const created = await as(http, alice.auth).post("/items", { title: "private", marker, count: 7 }).expect(201);
  const id = created.body.data.id;
  const api = as(http, mallory.auth);

  // Outside the caller's queryFilter: answered like a missing record, so existence does not leak.
  for (const response of [await api.get(`/items/${id}`), await api.patch(`/items/${id}`, { title: "pwned" }), await api.delete(`/items/${id}`)]) {
    t.is(response.status, 404);
    t.is(response.body.errors[0].code, RestErrors.NOT_FOUND.code);
    t.false(JSON.stringify(response.body).includes("private"));
  }
  // queryFields cannot widen the owner filter.
  for (const query of [`ownerId=${alice.user.id}`, `ownerId[$ne]=${mallory.user.id}`, `ownerId[$in]=${alice.user.id},${mallory.user.id}`, "ownerId[$exists]=true", "count=7", "title[$regex]=priv"]) {
    const response = await api.get(`/items?${query}`).expect(200);
    t.is(response.body.total, 0, query);
    t.deepEqual(response.body.data, []);
  }
  const stored = await Item.collection.findOne({ marker });
  t.is(stored?.title, "private");
  t.is(stored?.deleted, false);
});

test("populate never leaks more of another user's record than the declared fields", async (t) => {
  const http = await appFor(t);
  const mallory = tokens.user("populate-mallory");
  const victim = await Member.create({ name: "Alice", email: "alice@private.test" });
  const created = await as(http, mallory.auth).post("/items", { title: "probe", partnerId: victim.id }).expect(201);
  t.deepEqual(created.body.data.partnerId, { _id: victim.id, name: "Alice" });
  const read = await as(http, mallory.auth).get(`/items/${created.body.data.id}`).expect(200);
  t.false(JSON.stringify(read.body).includes("alice@private.test"));
  const list = await as(http, mallory.auth).get("/items").expect(200);
  t.false(JSON.stringify(list.body).includes("alice@private.test"));
  // Clients cannot ask for other populations.
  await as(http, mallory.auth).get("/items?populate=ownerId").expect(400);
});
