import test from "ava";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import {
  ACCOUNTS,
  AuthErrors,
  authPlugin,
  baseUserPlugin,
  checkModelsStrict,
  githubUserPlugin,
  isDeletedPlugin,
  isDisabledPlugin,
  modelRouter,
  Permissions,
  requireUser,
  type AuthUserFields,
  type RequestUser,
} from "../../../index.js";
import { createTestApp, stopTestDatabase } from "../../../hosts/testing.js";
import { JWT_ENV, uniqueEmail } from "../../../test/support/auth-test-app.js";

test.after.always(() => stopTestDatabase());

// The user model exactly as docs/auth.md builds it (strict, virtuals in toJSON/toObject, as
// checkModelsStrict() requires). Its schema-inferred type has `toJSON` virtuals, which mongoose's
// `Model<any>` refused with "Property 'id' is missing".
const userSchema = new Schema(
  { name: { type: String, description: "Display name" } },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
userSchema.plugin(baseUserPlugin);
userSchema.plugin(isDisabledPlugin);
userSchema.plugin(isDeletedPlugin);
userSchema.plugin(githubUserPlugin);
const User = mongoose.model("DocumentedUser", userSchema);

// Compile-time checks: `npm test` type-checks this file, so each `@ts-expect-error` must meet an
// error and every other line must compile. Never called: some of these are wrong on purpose.
export function userModelTypeChecks(): void {
  // Accepted: the documented model, the same on another connection, `Model<any>` (e.g.
  // `mongoose.models.User ?? ...`), and hand-written document types that extend AuthUserFields.
  authPlugin({ userModel: User, profileFields: ["name"], generateJWTPayload: (user) => ({ admin: user.admin === true }) });
  authPlugin({ userModel: mongoose.createConnection().model("User", new Schema({ email: String }, { toJSON: { virtuals: true } }).plugin(baseUserPlugin)) });
  authPlugin({ userModel: mongoose.models.User ?? mongoose.model("User", userSchema) });
  interface UserFields extends AuthUserFields {
    name?: string;
  }
  authPlugin({ userModel: mongoose.model<UserFields>("TypedUser", new Schema({ name: String })) });
  authPlugin({ userModel: mongoose.model("TypedSchemaUser", new Schema<UserFields>({ name: String })) });

  // @ts-expect-error a model name is not a model
  authPlugin({ userModel: "User" });
  // @ts-expect-error nor is an object that merely looks like one
  authPlugin({ userModel: { modelName: "User" } });
  // @ts-expect-error a hand-written document type without `email` is not a user
  authPlugin({ userModel: mongoose.model<{ title: string }>("Post", new Schema({ title: String })) });
  // @ts-expect-error `email` must be a string
  authPlugin({ userModel: mongoose.model("NumberEmail", new Schema({ email: Number })) });
  // @ts-expect-error `admin` must be a boolean
  authPlugin({ userModel: mongoose.model("StringAdmin", new Schema({ admin: String })) });

  // RequestUser: what `requireUser(req)` and `req.user` give; host fields are `unknown` until
  // declared (see RequestUser's doc comment for declaration merging).
  const user: RequestUser = requireUser({} as import("express").Request);
  const id: string = user.id;
  const admin: boolean | undefined = user.admin;
  const name: unknown = user.name;
  void [id, admin, name];
}

test("the documented user model is strict, and an app with it signs users up and reads them back", async (t) => {
  t.notThrows(() => checkModelsStrict());
  const app = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: User, profileFields: ["name"] }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const signup = await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: "correct horse battery", name: "Ada" }).expect(201);
  const me = await request(http).get("/auth/me").set("Authorization", `Bearer ${signup.body.data.token}`).expect(200);
  t.is(me.body.data.name, "Ada");
  t.is(me.body.data.id, signup.body.data.userId);
});

// TypeScript cannot see the fields schema plugins add, so a schema-inferred model that lacks
// baseUserPlugin compiles; the start names the missing plugin instead.
test("a schema-inferred model without baseUserPlugin compiles and fails the start with AUTH_USER_MODEL_FIELD_MISSING", async (t) => {
  const Post = mongoose.model("NotAUser", new Schema({ title: { type: String, description: "Title" } }, { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } }));
  const app = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: Post }));
  t.teardown(() => app.stop());
  const error = (await t.throwsAsync(app.build())) as { code?: string };
  t.is(error.code, AuthErrors.USER_MODEL_FIELD_MISSING.code);
});

test("the user's sign-in bookkeeping stays hidden: no model route shows or accepts the version or the ended sign-ins, nor does PATCH /auth/me or the OpenAPI document", async (t) => {
  const app = (await createTestApp({ env: JWT_ENV }))
    .register(authPlugin({ userModel: User, profileFields: ["name"] }))
    .register(modelRouter("/users", User, { permissions: { list: [Permissions.IsAdmin], read: [Permissions.IsAdmin], update: [Permissions.IsAdmin] } }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const accounts = app.resolve(ACCOUNTS);
  const admin = await accounts.createPasswordUser({ email: uniqueEmail("admin"), admin: true }, "correct horse battery");
  const ada = await accounts.createPasswordUser({ email: uniqueEmail("ada"), name: "Ada" }, "correct horse battery");
  await accounts.setPassword(ada.id, "another horse battery");
  const login = await request(http).post("/auth/login").send({ email: admin.email, password: "correct horse battery" }).expect(200);
  const auth = { Authorization: `Bearer ${login.body.data.token as string}` };
  // Ada signs in and out once, so she has an ended sign-in on record.
  const adaLogin = await request(http).post("/auth/login").send({ email: ada.email, password: "another horse battery" }).expect(200);
  await request(http).post("/auth/logout").send({ refreshToken: adaLogin.body.data.refreshToken as string }).expect(204);
  t.is((await User.findById(ada.id).select("+endedSignIns").lean<{ endedSignIns?: unknown[] }>())?.endedSignIns?.length, 1);

  const shown = await request(http).get(`/users/${ada.id}`).set(auth).expect(200);
  t.is(shown.body.data.name, "Ada");
  t.false("signInVersion" in shown.body.data);
  t.false("endedSignIns" in shown.body.data);
  const listed = await request(http).get("/users").set(auth).expect(200);
  t.false(JSON.stringify(listed.body).includes("signInVersion"));
  t.false(JSON.stringify(listed.body).includes("endedSignIns"));
  for (const body of [{ signInVersion: 0 }, { name: "Ada", signInVersion: 5 }, { endedSignIns: [] }]) {
    const refused = await request(http).patch(`/users/${ada.id}`).set(auth).send(body).expect(400);
    t.regex(refused.body.errors[0].code, /^VALIDATION_/);
  }
  await request(http).patch("/auth/me").set(auth).send({ signInVersion: 0 }).expect(400);
  await request(http).patch("/auth/me").set(auth).send({ endedSignIns: [] }).expect(400);
  t.is((await User.findById(ada.id).select("+signInVersion").lean<{ signInVersion?: number }>())?.signInVersion, 1);
  t.is((await User.findById(ada.id).select("+endedSignIns").lean<{ endedSignIns?: unknown[] }>())?.endedSignIns?.length, 1);
  const openapi = JSON.stringify((await request(http).get("/openapi.json").expect(200)).body);
  t.false(openapi.includes("signInVersion"));
  t.false(openapi.includes("endedSignIns"));
});

test("a user model that declares email and admin itself, without baseUserPlugin, still has its access tokens ended by setPassword", async (t) => {
  const schema = new Schema(
    {
      email: { type: String, lowercase: true, trim: true, description: "Sign-in email" },
      admin: { type: Boolean, default: false, description: "Administrator" },
    },
    { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
  );
  const HandMade = mongoose.model("HandMadeUser", schema);
  const app = (await createTestApp({ env: JWT_ENV })).register(authPlugin({ userModel: HandMade }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const email = uniqueEmail("hand");
  const signup = await request(http).post("/auth/signup").send({ email, password: "correct horse battery" }).expect(201);
  await app.resolve(ACCOUNTS).setPassword(signup.body.data.userId as string, "another horse battery");
  const refused = await request(http).get("/auth/me").set("Authorization", `Bearer ${signup.body.data.token as string}`).expect(401);
  t.is(refused.body.errors[0].code, AuthErrors.TOKEN_REVOKED.code);
  const again = await request(http).post("/auth/login").send({ email, password: "another horse battery" }).expect(200);
  const me = await request(http).get("/auth/me").set("Authorization", `Bearer ${again.body.data.token as string}`).expect(200);
  t.is(me.body.data.email, email);
  t.false("signInVersion" in me.body.data);
  // Signing one device out works without the plugin's field too (written past the schema), and stays hidden.
  const third = await request(http).post("/auth/login").send({ email, password: "another horse battery" }).expect(200);
  await request(http).post("/auth/logout").send({ refreshToken: third.body.data.refreshToken as string }).expect(204);
  t.is((await request(http).get("/auth/me").set("Authorization", `Bearer ${third.body.data.token as string}`).expect(401)).body.errors[0].code, AuthErrors.TOKEN_REVOKED.code);
  const still = await request(http).get("/auth/me").set("Authorization", `Bearer ${again.body.data.token as string}`).expect(200);
  t.false("endedSignIns" in still.body.data);
});
