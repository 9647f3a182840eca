// modelRouter's `throttle` option, used as a project would: through the package's exports, over
// the real HTTP stack, on the test database.
import test from "ava";
import type { Express } from "express";
import mongoose from "mongoose";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { defaultPlugins, HttpErrors, modelRouter, OwnerQueryFilter, Permissions, ThrottleErrors, type ModelRouterOptions } from "../../index.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";

test.after.always(() => stopTestDatabase());

interface NoteFields {
  text: string;
  ownerId?: mongoose.Types.ObjectId;
}
const schema = new mongoose.Schema<NoteFields>(
  {
    text: { type: String, required: true, maxlength: 100, description: "The note" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Who owns it" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(defaultPlugins);
const Note = mongoose.model("ThrottleNote", schema);

const tokens = new TokenMap();
const signedIn = [Permissions.IsAuthenticated];
const owner = [Permissions.IsOwner];
const anyone = [Permissions.IsAny];

let paths = 0;
/** An app serving notes at a path of its own (budgets are per router), with `throttle`. */
async function notesApp(t: import("ava").ExecutionContext, options: Partial<ModelRouterOptions<NoteFields>>, env: Record<string, string> = {}): Promise<{ http: Express; path: string }> {
  const path = `/notes-${++paths}`;
  const app = (await createTestApp({ env })).register(tokens.plugin()).register(
    modelRouter(path, Note, {
      permissions: { list: anyone, create: signedIn, read: owner, update: owner, delete: owner },
      queryFilter: OwnerQueryFilter,
      ...options,
    }),
  );
  const http = await app.build();
  t.teardown(() => app.stop());
  return { http, path };
}

function expectRateLimited(t: import("ava").ExecutionContext, response: request.Response): void {
  t.is(response.status, 429);
  t.is(response.body.errors[0].code, HttpErrors.RATE_LIMITED.code);
  const seconds = Number(response.headers["retry-after"]);
  t.true(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60, `Retry-After ${response.headers["retry-after"]}`);
  t.is(response.body.errors[0].meta.retryAfterSeconds, seconds);
  t.is(typeof response.body.requestId, "string");
}

test("a method's budget counts each user apart, and a refused create writes nothing", async (t) => {
  const { http, path } = await notesApp(t, { throttle: { create: "2/minute" } });
  const alice = tokens.user("alice-create");
  const bob = tokens.user("bob-create");
  const create = (auth: string, text: string) => request(http).post(path).set("Authorization", auth).send({ text });

  await create(alice.auth, "one").expect(201);
  await create(alice.auth, "two").expect(201);
  expectRateLimited(t, await create(alice.auth, "three"));
  t.is(await Note.collection.countDocuments({ ownerId: new mongoose.Types.ObjectId(alice.user.id) }), 2);
  // Another user's budget, and alice's other methods, are untouched.
  await create(bob.auth, "bob's").expect(201);
  await request(http).get(path).set("Authorization", alice.auth).expect(200);
});

test("anonymous callers are counted by IP (behind a trusted proxy, the client's; IPv6 by /56)", async (t) => {
  const { http, path } = await notesApp(t, { throttle: { list: { anonymous: "1/minute" } } }, { TRUST_PROXY: "loopback" });
  const list = (ip: string) => request(http).get(path).set("X-Forwarded-For", ip);
  await list("203.0.113.1").expect(200);
  expectRateLimited(t, await list("203.0.113.1"));
  await list("203.0.113.2").expect(200);
  // An IPv6 client is counted by its /56: another address in it is the same client.
  await list("2001:db8:7:100::1").expect(200);
  expectRateLimited(t, await list("2001:db8:7:1ff::2"));
  await list("2001:db8:7:200::1").expect(200);
  // Signed-in users have no budget here: the object form limits only the kinds it names.
  const carol = tokens.user("carol-list");
  for (let i = 0; i < 3; i++) await request(http).get(path).set("Authorization", carol.auth).set("X-Forwarded-For", "203.0.113.1").expect(200);
});

test("`all` is one budget for the router's methods; a refused request gives back what it spent", async (t) => {
  const { http, path } = await notesApp(t, { throttle: { all: "3/minute", create: "1/minute" } });
  const dave = tokens.user("dave-all");
  const api = () => request(http);
  await api().post(path).set("Authorization", dave.auth).send({ text: "first" }).expect(201);
  // Refused by create's budget: the point it took of `all` is returned...
  expectRateLimited(t, await api().post(path).set("Authorization", dave.auth).send({ text: "second" }));
  // ...so `all` still has two requests left, then none.
  await api().get(path).set("Authorization", dave.auth).expect(200);
  await api().get(path).set("Authorization", dave.auth).expect(200);
  expectRateLimited(t, await api().get(path).set("Authorization", dave.auth));
});

test("a caller refused by the permissions spends nothing; updates and deletes are throttled too", async (t) => {
  const { http, path } = await notesApp(t, { throttle: { create: "1/minute", update: "1/minute", delete: "1/minute" } });
  // Anonymous creates are 401 every time: the permission check comes first.
  for (let i = 0; i < 3; i++) await request(http).post(path).send({ text: "anonymous" }).expect(401);
  const erin = tokens.user("erin-writes");
  const created = await request(http).post(path).set("Authorization", erin.auth).send({ text: "v1" }).expect(201);
  const id = created.body.data.id as string;
  await request(http).patch(`${path}/${id}`).set("Authorization", erin.auth).send({ text: "v2" }).expect(200);
  expectRateLimited(t, await request(http).patch(`${path}/${id}`).set("Authorization", erin.auth).send({ text: "v3" }));
  t.is((await Note.findById(id).lean())?.text, "v2");
  await request(http).delete(`${path}/${id}`).set("Authorization", erin.auth).expect(204);
  const other = await Note.create({ text: "kept", ownerId: new mongoose.Types.ObjectId(erin.user.id) });
  expectRateLimited(t, await request(http).delete(`${path}/${other.id}`).set("Authorization", erin.auth));
  t.is((await Note.collection.findOne({ _id: other._id }))?.deleted, false);
});

test("throttled operations document their 429; the others do not", async (t) => {
  const { http, path } = await notesApp(t, { throttle: { create: "5/minute" } });
  const document = (await request(http).get("/openapi.json").expect(200)).body;
  t.deepEqual(document.paths[path].post.responses["429"], { $ref: "#/components/responses/TooManyRequests" });
  t.is(document.paths[path].get.responses["429"], undefined);
});

test("a malformed throttle fails where the router is built, naming the setting", (t) => {
  const build = (throttle: unknown) => () => modelRouter("/bad-notes", Note, { permissions: { list: anyone }, throttle: throttle as ModelRouterOptions<NoteFields>["throttle"] });
  for (const [throttle, names] of [
    [{ create: "30/fortnight" }, "throttle.create"],
    [{ create: "0/minute" }, "throttle.create"],
    [{ create: "1.5/minute" }, "throttle.create"],
    [{ list: { user: "10/minute", robots: "1/minute" } }, "throttle.list"],
    [{ creat: "30/minute" }, "throttle.creat"],
    ["30/minute", "throttle"],
  ] as const) {
    const error = t.throws(build(throttle));
    t.is((error as { code?: string }).code, ThrottleErrors.INVALID_RATE.code);
    t.true(error.message.includes(`ThrottleNote (/bad-notes): ${names}`), error.message);
  }
  t.notThrows(build({ all: "600/minute", create: "100/15m", read: "5/10s", update: "1000/day", delete: { user: "2/hours" } }));
});
