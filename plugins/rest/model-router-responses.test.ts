// What a careful client of a generated route expects from its answers: a blog's posts, each with
// an owner and a `published` flag, drafts visible to their owner only.
import test from "ava";
import express from "express";
import mongoose from "mongoose";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import { as, buildRestApp, HOSTS, spec } from "../../test/support/rest-hosts.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { configureOpenApiValidator, MAX_REPORTED_ISSUES, ValidationErrors } from "../validation/index.js";
import { RestErrors } from "./errors.js";
import type { ModelRouterOptions } from "./model-router-options.js";
import { OwnerQueryFilter, type QueryFilter } from "./owner-query-filter.js";
import { Permissions } from "./permissions.js";
import { DateOnly, registerDateOnlyType } from "./schema/date-only.js";
import { defaultPlugins } from "./schema/default-plugins.js";

registerDateOnlyType();
test.after.always(() => stopTestDatabase());

interface PostFields {
  title: string;
  summary?: string;
  subtitle?: string | null;
  published?: boolean;
  score?: number;
  tags?: string[];
  publishOn?: Date;
  ownerId?: mongoose.Types.ObjectId;
}
const postSchema = new mongoose.Schema<PostFields>(
  {
    title: { type: String, required: true, trim: true, maxlength: 40, description: "Headline" },
    summary: { type: String, description: "Teaser" },
    subtitle: { type: String, default: null, description: "Optional second line" },
    published: { type: Boolean, default: false, description: "Visible to everyone" },
    score: { type: Number, min: 0, description: "Editor's score" },
    tags: { type: [String], description: "Labels" },
    publishOn: { type: DateOnly, description: "Day it goes live" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Author" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
postSchema.plugin(defaultPlugins);
const Post = mongoose.model("ResponsesPost", postSchema);

/** Published posts for everyone; drafts for their author too. */
const PublishedOrOwn: QueryFilter = (user, _req, { ownerField }) =>
  user ? { $or: [{ published: true }, { [ownerField]: user.id }] } : { published: true };

const blog: ModelRouterOptions<PostFields> = {
  permissions: {
    list: [Permissions.IsAny],
    create: [Permissions.IsAuthenticated],
    read: [Permissions.IsAny],
    update: [Permissions.IsOwner],
    delete: [Permissions.IsOwner],
  },
  queryFilter: PublishedOrOwn,
};

const tokens = new TokenMap();

async function blogApp(t: import("ava").ExecutionContext, options: Partial<ModelRouterOptions<PostFields>> = {}, host: (typeof HOSTS)[number] = "SvcApp", plugins = [tokens.plugin()]) {
  const app = await buildRestApp(host, [spec("/posts", Post, { ...blog, ...options })], plugins);
  t.teardown(() => app.stop());
  return app.http;
}

function issuesOf(response: request.Response): Array<{ path: string; message: string }> {
  return JSON.parse(response.body.errors[0].meta.validationErrors as string) as Array<{ path: string; message: string }>;
}

test("a record outside the caller's queryFilter answers 404 on read, update and delete; inside it, object permissions answer 403", async (t) => {
  const http = await blogApp(t);
  const alice = tokens.user("scope-alice");
  const bob = tokens.user("scope-bob");
  const draft = (await as(http, alice.auth).post("/posts", { title: "Draft" }).expect(201)).body.data.id as string;
  const live = (await as(http, alice.auth).post("/posts", { title: "Live", published: true }).expect(201)).body.data.id as string;

  for (const response of [await as(http, bob.auth).get(`/posts/${draft}`), await as(http, bob.auth).patch(`/posts/${draft}`, { title: "x" }), await as(http, bob.auth).delete(`/posts/${draft}`), await as(http).get(`/posts/${draft}`)]) {
    t.is(response.status, 404);
    t.is(response.body.errors[0].code, RestErrors.NOT_FOUND.code);
  }
  const stored = await Post.collection.findOne({ _id: new mongoose.Types.ObjectId(draft) });
  t.like(stored, { title: "Draft", deleted: false });

  await as(http, bob.auth).get(`/posts/${live}`).expect(200);
  await as(http).get(`/posts/${live}`).expect(200);
  for (const response of [await as(http, bob.auth).patch(`/posts/${live}`, { title: "x" }), await as(http, bob.auth).delete(`/posts/${live}`)]) {
    t.is(response.status, 403);
    t.is(response.body.errors[0].code, HttpErrors.FORBIDDEN.code);
  }
  await as(http, alice.auth).get(`/posts/${draft}`).expect(200);
  await as(http, alice.auth).patch(`/posts/${draft}`, { title: "Edited" }).expect(200);
});

test("a queryFilter answering nothing (null) makes every record 404", async (t) => {
  const http = await blogApp(t, { queryFilter: () => null, permissions: { ...blog.permissions, update: [Permissions.IsAny], delete: [Permissions.IsAny] } });
  const id = String((await Post.create({ title: "Hidden", published: true }))._id);
  for (const response of [await as(http).get(`/posts/${id}`), await as(http).patch(`/posts/${id}`, { title: "x" }), await as(http).delete(`/posts/${id}`)]) {
    t.is(response.status, 404);
    t.is(response.body.errors[0].code, RestErrors.NOT_FOUND.code);
  }
});

test("OwnerQueryFilter lets admins reach every record, as IsOwner does", async (t) => {
  const owner = [Permissions.IsOwner];
  const http = await blogApp(t, { queryFilter: OwnerQueryFilter, permissions: { list: owner, create: owner, read: owner, update: owner, delete: owner } });
  const author = tokens.user("owner-filter-author");
  const admin = tokens.user("owner-filter-admin", { admin: true });
  const id = (await as(http, author.auth).post("/posts", { title: "Mine" }).expect(201)).body.data.id as string;
  await as(http, admin.auth).get(`/posts/${id}`).expect(200);
  const list = await as(http, admin.auth).get(`/posts?limit=500`).expect(200);
  t.true((list.body.data as Array<{ id: string }>).some((post) => post.id === id));
  await as(http, tokens.user("owner-filter-other").auth).get(`/posts/${id}`).expect(404);
});

test("a body that is not JSON answers 415 on create and update; +json media types are JSON", async (t) => {
  const http = await blogApp(t);
  const alice = tokens.user("media-alice");
  const text = await request(http).post("/posts").set("Authorization", alice.auth).set("Content-Type", "text/plain").send("title=Hello").expect(415);
  t.is(text.body.errors[0].code, HttpErrors.UNSUPPORTED_MEDIA_TYPE.code);
  const form = await request(http).post("/posts").set("Authorization", alice.auth).type("form").send({ title: "Hello" }).expect(415);
  t.is(form.body.errors[0].code, HttpErrors.UNSUPPORTED_MEDIA_TYPE.code);
  const id = (await as(http, alice.auth).post("/posts", { title: "Hello" }).expect(201)).body.data.id as string;
  const patchForm = await request(http).patch(`/posts/${id}`).set("Authorization", alice.auth).type("form").send({ title: "x" }).expect(415);
  t.is(patchForm.body.errors[0].code, HttpErrors.UNSUPPORTED_MEDIA_TYPE.code);
  const merged = await request(http)
    .patch(`/posts/${id}`)
    .set("Authorization", alice.auth)
    .set("Content-Type", "application/merge-patch+json")
    .send(JSON.stringify({ title: "Merged" }))
    .expect(200);
  t.is(merged.body.data.title, "Merged");
  // No body at all is not a media-type problem: the schema answers.
  const empty = await request(http).post("/posts").set("Authorization", alice.auth).expect(400);
  t.is(empty.body.errors[0].code, ValidationErrors.INVALID_BODY.code);
});

test("a JSON body that is not an object (null, a number) is a validation error, not malformed JSON", async (t) => {
  const http = await blogApp(t);
  const alice = tokens.user("null-alice");
  for (const body of ["null", "42", '"text"']) {
    const response = await request(http).post("/posts").set("Authorization", alice.auth).set("Content-Type", "application/json").send(body).expect(400);
    t.is(response.body.errors[0].code, ValidationErrors.INVALID_BODY.code, body);
    t.is(response.body.errors[0].source.pointer, "");
  }
  const broken = await request(http).post("/posts").set("Authorization", alice.auth).set("Content-Type", "application/json").send("nul").expect(400);
  t.is(broken.body.errors[0].code, HttpErrors.MALFORMED_BODY.code);
});

test("every problem of a body is reported, at most the first 20 plus a count of the rest", async (t) => {
  const http = await blogApp(t);
  const alice = tokens.user("all-alice");
  const several = await as(http, alice.auth).post("/posts", { title: { text: "x" }, score: -1, published: "maybe" }).expect(400);
  t.deepEqual(issuesOf(several).map((issue) => issue.path).sort(), ["published", "score", "title"]);
  t.is(several.body.errors[0].meta.moreErrors, undefined);

  const hostile: Record<string, unknown> = { title: "Fine" };
  for (let index = 0; index < 2000; index++) hostile[`field${index}`] = index;
  const capped = await as(http, alice.auth).post("/posts", hostile).expect(400);
  t.is(issuesOf(capped).length, MAX_REPORTED_ISSUES);
  t.is(capped.body.errors[0].meta.moreErrors, 2000 - MAX_REPORTED_ISSUES);
  t.true(JSON.stringify(capped.body).length < 5_000);
});

test("a day that is not a date is one problem, not three", async (t) => {
  const http = await blogApp(t);
  const alice = tokens.user("day-alice");
  const response = await as(http, alice.auth).post("/posts", { title: "Dated", publishOn: "someday" }).expect(400);
  t.is(response.body.errors[0].code, ValidationErrors.INVALID_BODY.code);
  t.deepEqual(issuesOf(response).map((issue) => issue.path), ["publishOn"]);
  await as(http, alice.auth).post("/posts", { title: "Dated", publishOn: "2024-05-01" }).expect(201);
});

test("lengths of trimmed strings are checked by the request schema, and no message quotes the input", async (t) => {
  const http = await blogApp(t);
  const alice = tokens.user("length-alice");
  const long = `Headline ${"x".repeat(60)}`;
  const checked = await as(http, alice.auth).post("/posts", { title: long }).expect(400);
  t.is(checked.body.errors[0].code, ValidationErrors.INVALID_BODY.code);
  t.false(JSON.stringify(checked.body).includes(long));

  // With request validation off, mongoose's own validator answers, in the same words.
  const unchecked = await blogApp(t, { validation: { validateCreate: false } });
  const refused = await as(unchecked, alice.auth).post("/posts", { title: long }).expect(400);
  t.is(refused.body.errors[0].code, ValidationErrors.FAILED.code);
  t.false(JSON.stringify(refused.body).includes(long));
  t.is(refused.body.errors[0].meta.fields[0].message, issuesOf(checked)[0]!.message);
});

test("PATCH null unsets an optional field, restores a field's default, and is refused for a required field", async (t) => {
  const http = await blogApp(t);
  const alice = tokens.user("null-patch-alice");
  const created = await as(http, alice.auth)
    .post("/posts", { title: "Full", summary: "Teaser", subtitle: "Second line", published: true, tags: ["a"], score: 3 })
    .expect(201);
  const id = created.body.data.id as string;
  const patched = await as(http, alice.auth).patch(`/posts/${id}`, { summary: null, score: null, subtitle: null, published: null, tags: null }).expect(200);
  t.false("summary" in patched.body.data);
  t.false("score" in patched.body.data);
  const stored = await Post.collection.findOne({ _id: new mongoose.Types.ObjectId(id) });
  t.false(stored !== null && "summary" in stored, "unset, not stored as null");
  t.false(stored !== null && "score" in stored);
  t.like(stored, { subtitle: null, published: false, tags: [] });

  const required = await as(http, alice.auth).patch(`/posts/${id}`, { title: null }).expect(400);
  t.is(required.body.errors[0].code, ValidationErrors.INVALID_BODY.code);
  const unchecked = await blogApp(t, { validation: { validateUpdate: false } });
  const refused = await as(unchecked, alice.auth).patch(`/posts/${id}`, { title: null }).expect(400);
  t.is(refused.body.errors[0].code, ValidationErrors.FAILED.code);
  t.like(await Post.collection.findOne({ _id: new mongoose.Types.ObjectId(id) }), { title: "Full" });
});

for (const host of HOSTS) {
  test(`${host}: 201 carries a Location header with the new record's URL`, async (t) => {
    const http = await blogApp(t, {}, host);
    const alice = tokens.user(`location-${host}`);
    const created = await as(http, alice.auth).post("/posts", { title: "Located" }).expect(201);
    t.is(created.headers.location, `/posts/${created.body.data.id}`);
    const read = await as(http, alice.auth).get(created.headers.location!).expect(200);
    t.is(read.body.data.title, "Located");
  });
}

test("the Location header keeps the prefix the app is mounted under", async (t) => {
  const http = await blogApp(t);
  const outer = express();
  outer.use("/api/v1", http);
  const alice = tokens.user("location-prefix");
  const created = await as(outer, alice.auth).post("/api/v1/posts", { title: "Nested" }).expect(201);
  t.is(created.headers.location, `/api/v1/posts/${created.body.data.id}`);
  await as(outer, alice.auth).get(created.headers.location!).expect(200);
});

test("validation settings off still refuse non-JSON bodies", async (t) => {
  const http = await blogApp(t, {}, "SvcApp", [tokens.plugin(), configureOpenApiValidator({ validateRequests: false })]);
  const alice = tokens.user("settings-off");
  const response = await request(http).post("/posts").set("Authorization", alice.auth).type("form").send({ title: "x" }).expect(415);
  t.is(response.body.errors[0].code, HttpErrors.UNSUPPORTED_MEDIA_TYPE.code);
});

test("reads and lists carry an ETag: sent back as If-None-Match it is 304 with no body until the record or the page changes", async (t) => {
  const http = await blogApp(t);
  const alice = tokens.user("etag-alice");
  const id = (await as(http, alice.auth).post("/posts", { title: "Cached" }).expect(201)).body.data.id as string;
  const read = await as(http, alice.auth).get(`/posts/${id}`).expect(200);
  const tag = read.headers.etag as string;
  t.truthy(tag);

  const revalidated = await request(http).get(`/posts/${id}`).set("Authorization", alice.auth).set("If-None-Match", tag).expect(304);
  t.is(revalidated.text, "");
  t.is(revalidated.headers.etag, tag);
  await as(http, alice.auth).patch(`/posts/${id}`, { title: "Changed" }).expect(200);
  const changed = await request(http).get(`/posts/${id}`).set("Authorization", alice.auth).set("If-None-Match", tag).expect(200);
  t.is(changed.body.data.title, "Changed");
  t.not(changed.headers.etag, tag);

  const page = await as(http, alice.auth).get("/posts?limit=5").expect(200);
  await request(http).get("/posts?limit=5").set("Authorization", alice.auth).set("If-None-Match", page.headers.etag as string).expect(304);
  // Another caller sees another page (no draft of alice's), so another tag: never alice's 304.
  const bob = tokens.user("etag-bob");
  await request(http).get("/posts?limit=5").set("Authorization", bob.auth).set("If-None-Match", page.headers.etag as string).expect(200);
});
