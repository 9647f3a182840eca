import test from "ava";
import mongoose from "mongoose";
import { stopTestDatabase } from "../../hosts/testing.js";
import { as, buildRestApp, HOSTS, spec } from "../../test/support/rest-hosts.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { RestErrors } from "./errors.js";
import type { ModelRouterOptions } from "./model-router-options.js";
import { OwnerQueryFilter } from "./owner-query-filter.js";
import { Permissions, type PermissionCheck, type RestMethod } from "./permissions.js";
import { defaultPlugins } from "./schema/default-plugins.js";
import { HttpErrors } from "../../kernel/http-errors.js";

test.after.always(() => stopTestDatabase());

interface NoteFields {
  text: string;
  ownerId?: mongoose.Types.ObjectId;
}
const schema = new mongoose.Schema<NoteFields>(
  {
    text: { type: String, required: true, description: "The note" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Who owns it" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(defaultPlugins);
const Note = mongoose.model("PermissionNote", schema);

const tokens = new TokenMap();
type Caller = "anonymous" | "user" | "owner" | "admin";
const CALLERS: readonly Caller[] = ["anonymous", "user", "owner", "admin"];
const METHODS: readonly RestMethod[] = ["list", "create", "read", "update", "delete"];

/** Expected status per method and caller. */
type Matrix = Record<RestMethod, Record<Caller, number>>;

async function runMatrix(t: import("ava").ExecutionContext, host: (typeof HOSTS)[number], path: string, options: ModelRouterOptions<NoteFields>, expected: Matrix) {
  const app = await buildRestApp(host, [spec(path, Note, options)], [tokens.plugin()]);
  t.teardown(() => app.stop());
  const suffix = `${host}-${path.slice(1)}`;
  const people = {
    user: tokens.user(`user-${suffix}`),
    owner: tokens.user(`owner-${suffix}`),
    admin: tokens.user(`admin-${suffix}`, { admin: true }),
  };
  const authOf = (caller: Caller) => (caller === "anonymous" ? undefined : people[caller].auth);
  const actual: Partial<Matrix> = {};
  for (const method of METHODS) {
    const row: Partial<Record<Caller, number>> = {};
    for (const caller of CALLERS) {
      // A fresh record of the owner's per cell: update and delete consume theirs.
      const note = await Note.create({ text: `${method}-${caller}`, ownerId: people.owner.user.id });
      const api = as(app.http, authOf(caller));
      const response =
        method === "list"
          ? await api.get(path)
          : method === "create"
            ? await api.post(path, { text: "new" })
            : method === "read"
              ? await api.get(`${path}/${note.id}`)
              : method === "update"
                ? await api.patch(`${path}/${note.id}`, { text: "changed" })
                : await api.delete(`${path}/${note.id}`);
      row[caller] = response.status;
      if (response.status === 401) t.is(response.body.errors[0].code, HttpErrors.UNAUTHENTICATED.code);
      if (response.status === 403) t.is(response.body.errors[0].code, HttpErrors.FORBIDDEN.code);
      const stored = await Note.collection.findOne({ _id: note._id });
      if (method === "update") t.is(stored?.text, response.status === 200 ? "changed" : `${method}-${caller}`, `${method} ${caller}`);
      if (method === "delete") t.is(stored?.deleted, response.status === 204, `${method} ${caller}`);
    }
    actual[method] = row as Record<Caller, number>;
  }
  t.deepEqual(actual, expected);
}

for (const host of HOSTS) {
  test(`${host}: owner-scoped router (IsOwner everywhere + OwnerQueryFilter)`, async (t) => {
    const owner = [Permissions.IsOwner];
    await runMatrix(
      t,
      host,
      "/owned-notes",
      { permissions: { list: owner, create: owner, read: owner, update: owner, delete: owner }, queryFilter: OwnerQueryFilter },
      {
        list: { anonymous: 401, user: 200, owner: 200, admin: 200 },
        create: { anonymous: 401, user: 201, owner: 201, admin: 201 },
        // Another user's record is outside their queryFilter: 404, as if it did not exist.
        read: { anonymous: 401, user: 404, owner: 200, admin: 200 },
        update: { anonymous: 401, user: 404, owner: 200, admin: 200 },
        delete: { anonymous: 401, user: 404, owner: 204, admin: 204 },
      },
    );
  });

  test(`${host}: mixed named checks per method`, async (t) => {
    await runMatrix(
      t,
      host,
      "/mixed-notes",
      {
        permissions: {
          list: [Permissions.IsAny],
          create: [Permissions.IsAuthenticated],
          read: [Permissions.IsAuthenticatedOrReadOnly],
          update: [Permissions.IsOwner],
          delete: [Permissions.IsAdmin],
        },
      },
      {
        list: { anonymous: 200, user: 200, owner: 200, admin: 200 },
        create: { anonymous: 401, user: 201, owner: 201, admin: 201 },
        read: { anonymous: 200, user: 200, owner: 200, admin: 200 },
        update: { anonymous: 401, user: 403, owner: 200, admin: 200 },
        delete: { anonymous: 401, user: 403, owner: 403, admin: 204 },
      },
    );
  });

  test(`${host}: empty or missing checks deny everyone; several checks must all pass`, async (t) => {
    await runMatrix(
      t,
      host,
      "/closed-notes",
      {
        permissions: {
          list: [],
          // create: missing
          read: [Permissions.IsOwner, Permissions.IsAdmin],
          update: [Permissions.IsAuthenticated, Permissions.IsOwner],
          delete: [Permissions.IsAdmin, Permissions.IsAuthenticated],
        },
      },
      {
        list: { anonymous: 403, user: 403, owner: 403, admin: 403 },
        create: { anonymous: 403, user: 403, owner: 403, admin: 403 },
        read: { anonymous: 401, user: 403, owner: 403, admin: 200 },
        update: { anonymous: 401, user: 403, owner: 200, admin: 200 },
        delete: { anonymous: 401, user: 403, owner: 403, admin: 204 },
      },
    );
  });
}

test("the owner-scoped list shows each caller only their own records", async (t) => {
  const owner = [Permissions.IsOwner];
  const app = await buildRestApp("SvcApp", [spec("/my-notes", Note, { permissions: { list: owner, create: owner }, queryFilter: OwnerQueryFilter })], [tokens.plugin()]);
  t.teardown(() => app.stop());
  const alice = tokens.user("list-alice");
  const bob = tokens.user("list-bob");
  await as(app.http, alice.auth).post("/my-notes", { text: "alice's" }).expect(201);
  await as(app.http, bob.auth).post("/my-notes", { text: "bob's" }).expect(201);
  const aliceList = await as(app.http, alice.auth).get("/my-notes").expect(200);
  t.deepEqual(aliceList.body.data.map((note: NoteFields) => note.text), ["alice's"]);
  t.is(aliceList.body.total, 1);
});

test("custom and asynchronous checks receive the method, user, object and owner field", async (t) => {
  const seen: string[] = [];
  const OnlyShortNotes: PermissionCheck = async (method, user, object, context) => {
    seen.push(`${method}:${user ? "user" : "anon"}:${object ? "object" : "none"}:${context.ownerField}`);
    return object === undefined || String(object.text).length < 6;
  };
  const app = await buildRestApp("SvcApp", [spec("/custom-notes", Note, { permissions: { read: [OnlyShortNotes] } })], [tokens.plugin()]);
  t.teardown(() => app.stop());
  const short = await Note.create({ text: "short" });
  const long = await Note.create({ text: "much longer" });
  const alice = tokens.user("custom-alice");
  await as(app.http, alice.auth).get(`/custom-notes/${short.id}`).expect(200);
  await as(app.http, alice.auth).get(`/custom-notes/${long.id}`).expect(403);
  // A custom check that denies an anonymous caller answers 401: signing in might help.
  await as(app.http).get(`/custom-notes/${long.id}`).expect(401);
  t.true(seen.includes("read:user:none:ownerId"));
  t.true(seen.includes("read:user:object:ownerId"));
});

test("a configurable owner field drives IsOwner, OwnerQueryFilter and create", async (t) => {
  const authored = new mongoose.Schema(
    { text: { type: String, description: "The note" }, authorId: { type: String, description: "Author's user id" } },
    { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
  );
  const Authored = mongoose.model("PermissionAuthored", authored);
  const owner = [Permissions.IsOwner];
  const app = await buildRestApp(
    "SvcApp",
    [spec("/authored", Authored, { ownerField: "authorId", permissions: { list: owner, create: owner, read: owner }, queryFilter: OwnerQueryFilter })],
    [tokens.plugin()],
  );
  t.teardown(() => app.stop());
  const alice = tokens.user("author-alice");
  const bob = tokens.user("author-bob");
  const created = await as(app.http, alice.auth).post("/authored", { text: "mine" }).expect(201);
  t.is(created.body.data.authorId, alice.user.id);
  await as(app.http, alice.auth).post("/authored", { text: "x", authorId: bob.user.id }).expect(400);
  await as(app.http, bob.auth).get(`/authored/${created.body.data.id}`).expect(404);
  const bobList = await as(app.http, bob.auth).get("/authored").expect(200);
  t.is(bobList.body.total, 0);
});
