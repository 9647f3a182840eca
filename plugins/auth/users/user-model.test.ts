import test from "ava";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import {
  AuthErrors,
  authPlugin,
  baseUserPlugin,
  checkModelsStrict,
  githubUserPlugin,
  isDeletedPlugin,
  isDisabledPlugin,
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
