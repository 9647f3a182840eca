// The same protected routes under both providers: req.user, Permissions.* and the legacy builder.
import test from "ava";
import express from "express";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { setupServer } from "../../hosts/setup-server.js";
import { startTestDatabase, stopTestDatabase } from "../../hosts/testing.js";
import { modelRouter, Permissions } from "../rest/index.js";
import { authTestApp, JWT_ENV, SESSION_ENV, TestUser, uniqueEmail } from "../../test/support/auth-test-app.js";
import type { SvcApp } from "../../hosts/svc-app.js";

test.after.always(() => stopTestDatabase());

type Http = Parameters<typeof request>[0];
const APP = "https://app.example.com";
const PASSWORD = "correct horse battery staple";

const noteSchema = new Schema(
  {
    title: { type: String, required: true, description: "Title" },
    ownerId: { type: String, description: "Owner's user id" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
const Note = mongoose.models.AuthCrossNote ?? mongoose.model("AuthCrossNote", noteSchema);

function routes(app: SvcApp): void {
  const router = express.Router();
  router.get("/whoami", (req, res) => res.json({ data: req.user ?? null }));
  app.register(router);
  const signedIn = [Permissions.IsAuthenticated];
  const owner = [Permissions.IsOwner];
  app.register(
    modelRouter("/notes", Note, {
      ownerField: "ownerId",
      permissions: { list: signedIn, create: signedIn, read: owner, update: owner, delete: [Permissions.IsAdmin] },
      preCreate: (body, req) => ({ ...body, ownerId: req.user!.id }),
    }),
  );
}

interface Provider {
  name: string;
  build(t: Parameters<typeof authTestApp>[0]): Promise<Http>;
  signUp(http: Http): Promise<{ headers: Record<string, string>; userId: string }>;
}

const providers: Provider[] = [
  {
    name: "jwt",
    build: async (t) => (await authTestApp(t, {}, {}, routes)).http,
    async signUp(http) {
      const response = await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD }).expect(201);
      return { headers: { Authorization: `Bearer ${response.body.data.token}` }, userId: response.body.data.userId };
    },
  },
  {
    name: "session-auth",
    build: async (t) => (await authTestApp(t, { sessionAuth: { trustedOrigins: [APP] } }, SESSION_ENV, routes)).http,
    async signUp(http) {
      const response = await request(http).post("/api/auth/signup/email").send({ email: uniqueEmail(), password: PASSWORD }).expect(201);
      const cookie = ([] as string[]).concat(response.headers["set-cookie"] ?? []).map((line) => line.split(";")[0]).join("; ");
      return { headers: { Cookie: cookie }, userId: response.body.data.userId };
    },
  },
];

function shape(user: Record<string, unknown>): Record<string, string> {
  // Keys and value types, ignoring provider-specific identity fields.
  const ignored = new Set(["federatedId", "githubId", "githubUsername", "githubProfileUrl", "githubAvatarUrl"]);
  return Object.fromEntries(Object.entries(user).filter(([key]) => !ignored.has(key)).map(([key, value]) => [key, typeof value]));
}

test("req.user has the same shape under both providers", async (t) => {
  const shapes: Array<Record<string, string>> = [];
  for (const provider of providers) {
    const http = await provider.build(t);
    const { headers, userId } = await provider.signUp(http);
    const me = (await request(http).get("/whoami").set(headers).expect(200)).body.data;
    t.is(me.id, userId, provider.name);
    t.like(me, { admin: false, disabled: false, deleted: false });
    shapes.push(shape(me));
  }
  t.deepEqual(shapes[0], shapes[1]);
});

for (const provider of providers) {
  test(`Permissions on a model router see the user (${provider.name})`, async (t) => {
    const http = await provider.build(t);
    const alice = await provider.signUp(http);
    const bob = await provider.signUp(http);
    const created = await request(http).post("/notes").set(alice.headers).send({ title: "mine" }).expect(201);
    t.is(created.body.data.ownerId, alice.userId);
    const id = created.body.data._id ?? created.body.data.id;
    await request(http).get(`/notes/${id}`).set(alice.headers).expect(200);
    await request(http).get(`/notes/${id}`).set(bob.headers).expect(403);
    await request(http).get(`/notes/${id}`).expect(401);
    await request(http).delete(`/notes/${id}`).set(alice.headers).expect(403);
    await TestUser.updateOne({ _id: alice.userId }, { $set: { admin: true } });
    // Admin rights apply on the next request: the user is read per request, not from the token.
    await request(http).get(`/notes/${id}`).set(bob.headers).expect(403);
    await request(http).delete(`/notes/${id}`).set(alice.headers).expect(204);
  });
}

test("setupServer registers the auth plugin from userModel", async (t) => {
  const database = await startTestDatabase();
  const server = await setupServer({
    skipListen: true,
    handleSignals: false,
    env: { NODE_ENV: "test", ...JWT_ENV },
    database: { uri: database.uri, dbName: database.dbName },
    userModel: TestUser,
    auth: { profileFields: ["name"] },
    addRoutes() {},
  });
  t.teardown(() => server.stop());
  const signup = await request(server.app).post("/auth/signup").send({ email: uniqueEmail(), password: PASSWORD, name: "Legacy" }).expect(201);
  const me = await request(server.app).get("/auth/me").set("Authorization", `Bearer ${signup.body.data.token}`).expect(200);
  t.is(me.body.data.name, "Legacy");
});
