// If-Match on a model router's PATCH and DELETE (lost updates), used as a project would: through
// the package's exports, over the real HTTP stack, on the test database.
import test, { type ExecutionContext } from "ava";
import type { Express } from "express";
import mongoose from "mongoose";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { defaultPlugins, modelRouter, OwnerQueryFilter, Permissions, RestErrors, type ModelRouterOptions } from "../../index.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";

test.after.always(() => stopTestDatabase());

interface PageFields {
  title: string;
  body?: string;
  tags?: string[];
  ownerId?: mongoose.Types.ObjectId;
}
const definition = {
  title: { type: String, required: true, description: "The page's title" },
  body: { type: String, description: "What it says" },
  tags: { type: [String], description: "Labels" },
  ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Who wrote it" },
};
const revisioned = new mongoose.Schema<PageFields>(definition, { strict: "throw", optimisticConcurrency: true, toJSON: { virtuals: true }, toObject: { virtuals: true } });
revisioned.plugin(defaultPlugins);
const Page = mongoose.model("IfMatchPage", revisioned);
const plain = new mongoose.Schema<PageFields>(definition, { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } });
plain.plugin(defaultPlugins);
const Note = mongoose.model("IfMatchNote", plain);

// No isDeletedPlugin: a DELETE removes the record.
const Sticky = mongoose.model("IfMatchSticky", new mongoose.Schema<PageFields>(definition, { strict: "throw", optimisticConcurrency: true, toJSON: { virtuals: true }, toObject: { virtuals: true } }));

const tokens = new TokenMap();
const own = [Permissions.IsOwner];
const routerOptions = (extra: Partial<ModelRouterOptions<PageFields>> = {}): ModelRouterOptions<PageFields> => ({
  permissions: { list: [Permissions.IsAuthenticated], create: [Permissions.IsAuthenticated], read: own, update: own, delete: own },
  queryFilter: OwnerQueryFilter,
  ...extra,
});

async function pagesApp(t: ExecutionContext): Promise<Express> {
  const app = (await createTestApp()).register(tokens.plugin()).register(modelRouter("/pages", Page, routerOptions())).register(modelRouter("/notes", Note, routerOptions()))
    .register(modelRouter("/stickies", Sticky, routerOptions()));
  const http = await app.build();
  t.teardown(() => app.stop());
  return http;
}

const code = (response: request.Response) => response.body.errors?.[0]?.code as string | undefined;

test("a PATCH with the ETag it read applies and answers the new ETag; one with an older ETag is 412 and writes nothing", async (t) => {
  const http = await pagesApp(t);
  const alice = tokens.user("alice-if-match");
  const id = (await request(http).post("/pages").set("Authorization", alice.auth).send({ title: "Draft" }).expect(201)).body.data.id as string;
  const read = await request(http).get(`/pages/${id}`).set("Authorization", alice.auth).expect(200);
  const tag = read.headers.etag as string;
  t.regex(tag, /^"\d+-[A-Za-z0-9_-]{22}"$/);

  const edited = await request(http).patch(`/pages/${id}`).set("Authorization", alice.auth).set("If-Match", tag).send({ title: "Edited" }).expect(200);
  t.is(edited.body.data.title, "Edited");
  const newTag = edited.headers.etag as string;
  t.truthy(newTag);
  t.not(newTag.split("-")[0], tag.split("-")[0]);

  // Another device still holds the first tag: its change would overwrite "Edited" unseen.
  const stale = await request(http).patch(`/pages/${id}`).set("Authorization", alice.auth).set("If-Match", tag).send({ title: "Lost update" }).expect(412);
  t.is(code(stale), RestErrors.PRECONDITION_FAILED.code);
  t.is(stale.body.errors[0].source.parameter, "If-Match");
  t.is((await Page.findById(id).lean())?.title, "Edited");
  // The tag of the latest answer, or `*`, or a list holding it, applies.
  await request(http).patch(`/pages/${id}`).set("Authorization", alice.auth).set("If-Match", `"0-x", ${newTag}`).send({ body: "text" }).expect(200);
  await request(http).patch(`/pages/${id}`).set("Authorization", alice.auth).set("If-Match", "*").send({ tags: ["a"] }).expect(200);
  // Without If-Match, writes go on as before (last one wins).
  await request(http).patch(`/pages/${id}`).set("Authorization", alice.auth).send({ title: "Unconditional" }).expect(200);
});

test("a create answers its record's first ETag, so a client can write with If-Match at once; a replayed create answers it too", async (t) => {
  const http = await pagesApp(t);
  const alice = tokens.user("alice-create-tag");
  const create = () => request(http).post("/pages").set("Authorization", alice.auth).set("Idempotency-Key", "page-1").send({ title: "New" });
  const created = await create().expect(201);
  const tag = created.headers.etag as string;
  t.regex(tag, /^"0-/);
  t.is((await create().expect(201)).headers.etag, tag);
  await request(http).patch(`/pages/${created.body.data.id as string}`).set("Authorization", alice.auth).set("If-Match", tag).send({ title: "Renamed" }).expect(200);
  await request(http).patch(`/pages/${created.body.data.id as string}`).set("Authorization", alice.auth).set("If-Match", tag).send({ title: "Stale" }).expect(412);
});

test("weak or malformed tags never match; 404 and 403 come before 412", async (t) => {
  const http = await pagesApp(t);
  const alice = tokens.user("alice-weak");
  const bob = tokens.user("bob-weak");
  const id = (await request(http).post("/pages").set("Authorization", alice.auth).send({ title: "Mine" }).expect(201)).body.data.id as string;
  const tag = (await request(http).get(`/pages/${id}`).set("Authorization", alice.auth).expect(200)).headers.etag as string;

  for (const header of [`W/${tag}`, tag.slice(1, -1), "garbage", '"-1-x"', '""']) {
    const response = await request(http).patch(`/pages/${id}`).set("Authorization", alice.auth).set("If-Match", header).send({ title: "x" });
    t.is(response.status, 412, header);
  }
  await request(http).patch(`/pages/${new mongoose.Types.ObjectId().toHexString()}`).set("Authorization", alice.auth).set("If-Match", tag).send({ title: "x" }).expect(404);
  // Bob's request is outside his query filter: 404, whatever his tag says.
  await request(http).patch(`/pages/${id}`).set("Authorization", bob.auth).set("If-Match", '"0-x"').send({ title: "x" }).expect(404);
  t.is((await Page.findById(id).lean())?.title, "Mine");
});

test("two writers with the same ETag at once: exactly one applies, the other is 412", async (t) => {
  const http = await pagesApp(t);
  const alice = tokens.user("alice-race");
  const id = (await request(http).post("/pages").set("Authorization", alice.auth).send({ title: "Shared" }).expect(201)).body.data.id as string;
  const tag = (await request(http).get(`/pages/${id}`).set("Authorization", alice.auth).expect(200)).headers.etag as string;

  const answers = await Promise.all(
    ["phone", "laptop", "tablet", "watch"].map((device) => request(http).patch(`/pages/${id}`).set("Authorization", alice.auth).set("If-Match", tag).send({ title: `from ${device}`, tags: [device] })),
  );
  t.deepEqual(answers.map((answer) => answer.status).sort(), [200, 412, 412, 412]);
  const winner = answers.find((answer) => answer.status === 200)!;
  t.is((await Page.findById(id).lean())?.title, winner.body.data.title);
});

test("DELETE with a stale ETag is 412 and deletes nothing; with the current one it deletes", async (t) => {
  const http = await pagesApp(t);
  const alice = tokens.user("alice-delete");
  const id = (await request(http).post("/pages").set("Authorization", alice.auth).send({ title: "Doomed" }).expect(201)).body.data.id as string;
  const tag = (await request(http).get(`/pages/${id}`).set("Authorization", alice.auth).expect(200)).headers.etag as string;
  const edited = await request(http).patch(`/pages/${id}`).set("Authorization", alice.auth).send({ body: "changed meanwhile" }).expect(200);

  t.is(code(await request(http).delete(`/pages/${id}`).set("Authorization", alice.auth).set("If-Match", tag).expect(412)), RestErrors.PRECONDITION_FAILED.code);
  t.false((await Page.collection.findOne({ _id: new mongoose.Types.ObjectId(id) }))?.deleted);
  await request(http).delete(`/pages/${id}`).set("Authorization", alice.auth).set("If-Match", edited.headers.etag as string).expect(204);
  t.true((await Page.collection.findOne({ _id: new mongoose.Types.ObjectId(id) }))?.deleted);
});

test("a hard DELETE with If-Match removes only the revision it names", async (t) => {
  const http = await pagesApp(t);
  const alice = tokens.user("alice-hard-delete");
  const id = (await request(http).post("/stickies").set("Authorization", alice.auth).send({ title: "Note" }).expect(201)).body.data.id as string;
  const tag = (await request(http).get(`/stickies/${id}`).set("Authorization", alice.auth).expect(200)).headers.etag as string;
  const edited = await request(http).patch(`/stickies/${id}`).set("Authorization", alice.auth).send({ title: "Edited elsewhere" }).expect(200);

  await request(http).delete(`/stickies/${id}`).set("Authorization", alice.auth).set("If-Match", tag).expect(412);
  t.is(await Sticky.countDocuments({ _id: id }), 1);
  await request(http).delete(`/stickies/${id}`).set("Authorization", alice.auth).set("If-Match", edited.headers.etag as string).expect(204);
  t.is(await Sticky.countDocuments({ _id: id }), 0);
  await request(http).delete(`/stickies/${id}`).set("Authorization", alice.auth).set("If-Match", edited.headers.etag as string).expect(404);
});

test("the ETag follows the answer's bytes, so If-None-Match stays right; a model without revisions refuses If-Match rather than ignore it", async (t) => {
  const http = await pagesApp(t);
  const alice = tokens.user("alice-etag");
  const id = (await request(http).post("/pages").set("Authorization", alice.auth).send({ title: "Cached", body: "long" }).expect(201)).body.data.id as string;
  const whole = await request(http).get(`/pages/${id}`).set("Authorization", alice.auth).expect(200);
  const titleOnly = await request(http).get(`/pages/${id}?fields=title`).set("Authorization", alice.auth).expect(200);
  t.not(titleOnly.headers.etag, whole.headers.etag);
  t.is((titleOnly.headers.etag as string).split("-")[0], (whole.headers.etag as string).split("-")[0]);
  await request(http).get(`/pages/${id}`).set("Authorization", alice.auth).set("If-None-Match", whole.headers.etag as string).expect(304);
  // A tag read with ?fields= still names the revision, so it guards a write too.
  await request(http).patch(`/pages/${id}`).set("Authorization", alice.auth).set("If-Match", titleOnly.headers.etag as string).send({ body: "short" }).expect(200);

  const noteId = (await request(http).post("/notes").set("Authorization", alice.auth).send({ title: "Plain" }).expect(201)).body.data.id as string;
  const refused = await request(http).patch(`/notes/${noteId}`).set("Authorization", alice.auth).set("If-Match", '"0-x"').send({ title: "x" }).expect(400);
  t.is(code(refused), RestErrors.IF_MATCH_UNSUPPORTED.code);
  t.regex(refused.body.errors[0].detail, /optimisticConcurrency: true/);
  await request(http).delete(`/notes/${noteId}`).set("Authorization", alice.auth).set("If-Match", "*").expect(400);
  t.is((await Note.findById(noteId).lean())?.title, "Plain");
  // Its reads keep express's ETag (a digest of the bytes) for If-None-Match.
  t.regex((await request(http).get(`/notes/${noteId}`).set("Authorization", alice.auth).expect(200)).headers.etag as string, /^W\//);
});

test("/openapi.json documents the ETag, If-Match and 412 on models with revisions only", async (t) => {
  const http = await pagesApp(t);
  const { body: document } = await request(http).get("/openapi.json").expect(200);
  const pages = document.paths["/pages/{id}"];
  t.truthy(pages.get.responses["200"].headers.ETag);
  for (const method of ["patch", "delete"]) {
    t.like(pages[method].parameters.find((parameter: { name: string }) => parameter.name === "If-Match"), { in: "header", required: false });
    t.regex(pages[method].responses["412"].description, /REST_PRECONDITION_FAILED/);
  }
  t.truthy(pages.patch.responses["200"].headers.ETag);
  t.truthy(document.paths["/pages"].post.responses["201"].headers.ETag);
  const notes = document.paths["/notes/{id}"];
  t.false(notes.patch.parameters.some((parameter: { name: string }) => parameter.name === "If-Match"));
  t.is(notes.patch.responses["412"], undefined);
});
