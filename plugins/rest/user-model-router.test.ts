// A REST router of the user model itself (a people directory where each user edits their own
// record): the framework-managed fields (`admin`, `roles`, `disabled`, `email`, linked
// identities) stay the framework's. Before, `PATCH /users/<own id> {admin: true}` made any user an
// admin, and the MCP model tools, which run these routes, did the same.
import test from "ava";
import mongoose from "mongoose";
import request from "supertest";
import { authPlugin, baseUserPlugin, githubUserPlugin, isDisabledPlugin, modelRouter, Permissions } from "../../index.js";
import { bearer, createTestApp, createUser, loginAs, stopTestDatabase } from "../../hosts/testing.js";

test.after.always(() => stopTestDatabase());

const schema = new mongoose.Schema(
  {
    name: { type: String, maxlength: 100, description: "Display name" },
    roles: { type: [String], default: [], description: "Admin roles" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(baseUserPlugin);
schema.plugin(isDisabledPlugin);
schema.plugin(githubUserPlugin);
const Person = mongoose.model("RestDirectoryPerson", schema);

const app = createTestApp().then((created) =>
  created.register(authPlugin({ userModel: Person })).register(
    modelRouter("/people", Person, {
      ownerField: "_id",
      permissions: { list: [Permissions.IsAuthenticated], read: [Permissions.IsAuthenticated], create: [Permissions.IsAdmin], update: [Permissions.IsOwner], delete: [Permissions.IsAdmin] },
    }),
  ),
);
test.after.always(async () => (await app).stop());

async function signedIn(admin = false) {
  const svc = await app;
  const account = await createUser(svc, { admin });
  return { http: await svc.build(), id: account.id, auth: bearer(await loginAs(svc, account)) };
}

test("a user edits their own record but none of the fields the framework manages: 400, nothing written", async (t) => {
  const { http, id, auth } = await signedIn();
  const before = await Person.findById(id).lean();
  for (const body of [{ admin: true }, { roles: ["admin"] }, { "roles.0": "admin" }, { disabled: true }, { email: "someone-else@example.com" }, { githubId: "12345" }, { name: "Ada", admin: true }]) {
    const response = await request(http).patch(`/people/${id}`).set(auth).send(body).expect(400);
    t.is(response.body.errors[0].code, "VALIDATION_READ_ONLY_FIELD", JSON.stringify(body));
  }
  t.deepEqual(await Person.findById(id).lean(), before);
  const renamed = await request(http).patch(`/people/${id}`).set(auth).send({ name: "Ada" }).expect(200);
  t.is(renamed.body.data.name, "Ada");
  t.false((await Person.findById(id).lean<{ admin: boolean }>())!.admin);
});

test("an admin sets them through the same routes", async (t) => {
  const { http, auth } = await signedIn(true);
  const other = await signedIn();
  const changed = await request(http).patch(`/people/${other.id}`).set(auth).send({ roles: ["support"], disabled: true }).expect(200);
  t.deepEqual(changed.body.data.roles, ["support"]);
  const stored = await Person.findById(other.id).lean<{ roles: string[]; disabled: boolean }>();
  t.deepEqual([stored!.roles, stored!.disabled], [["support"], true]);
  const created = await request(http).post("/people").set(auth).send({ email: "new-person@example.com", admin: false, name: "New" });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body.data.email, "new-person@example.com");
});
