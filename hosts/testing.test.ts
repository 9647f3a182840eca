// The `svc/testing` helpers used the way a project's own tests use them: the package entry for
// the app and plugins, the testing entry for the helpers. resetTestDatabase empties the database
// this file shares, so its tests run one at a time.
import test from "ava";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { authPlugin, baseUserPlugin, createScryptHasher, hasErrorCode, isDisabledPlugin, PASSWORD_HASHER } from "../index.js";
import { ConfigErrors } from "../kernel/environment.js";
import {
  AppAccountsErrors,
  bearer,
  createTestApp,
  createUser,
  loginAs,
  resetTestDatabase,
  stopTestDatabase,
  TestingErrors,
} from "./testing.js";

const userSchema = new Schema({ name: { type: String, description: "Display name" } }, { strict: "throw" });
userSchema.plugin(baseUserPlugin);
userSchema.plugin(isDisabledPlugin);
const User = mongoose.models.TestingHelpersUser ?? mongoose.model("TestingHelpersUser", userSchema);

/** What a project's test does: a new app and new plugin instances per test, stopped afterwards. */
async function appForTest(t: { teardown(fn: () => Promise<void>): void }) {
  const app = (await createTestApp())
    .register(authPlugin({ userModel: User, profileFields: ["name"] }))
    // Cheaper hashing keeps tests quick; the production cost is not what they test.
    .override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  t.teardown(() => app.stop());
  return app;
}

test.beforeEach(() => resetTestDatabase());
test.after.always(() => stopTestDatabase());

test.serial("createTestApp fills in the auth secrets, so authPlugin starts with no environment", async (t) => {
  const app = await appForTest(t);
  const http = await app.build();
  const signup = await request(http).post("/auth/signup").send({ email: "first@example.com", password: "correct horse battery" }).expect(201);
  t.is(typeof signup.body.data.token, "string");
});

test.serial("createUser and loginAs give a token that the app's real JWT checks accept", async (t) => {
  const app = await appForTest(t);
  const http = await app.build();
  const ada = await createUser(app, { name: "Ada" });
  const admin = await createUser(app, { email: "Root@Example.com", admin: true });
  t.is(admin.email, "root@example.com");
  t.true(admin.user.admin);
  t.false(ada.user.admin);

  const me = await request(http).get("/auth/me").set(bearer(await loginAs(app, ada))).expect(200);
  t.like(me.body.data, { id: ada.id, email: ada.email, name: "Ada", admin: false });
  const root = await request(http).get("/auth/me").set(bearer(await loginAs(app, admin))).expect(200);
  t.true(root.body.data.admin);
});

test.serial("loginAs with a wrong password throws TESTING_LOGIN_FAILED naming the refusal", async (t) => {
  const app = await appForTest(t);
  const ada = await createUser(app);
  const error = await t.throwsAsync(loginAs(app, { email: ada.email, password: "not the password" }));
  t.true(hasErrorCode(error, TestingErrors.LOGIN_FAILED));
  t.true(error!.message.includes("AUTH_INVALID_CREDENTIALS"));
});

test.serial("createUser makes a disabled user when asked; loginAs then names AUTH_USER_DISABLED", async (t) => {
  const app = await appForTest(t);
  const grace = await createUser(app, { disabled: true });
  t.is(await User.countDocuments({ email: grace.email }), 1);
  t.is((await User.findById(grace.id).lean<{ disabled?: boolean }>())?.disabled, true);
  const error = await t.throwsAsync(loginAs(app, grace));
  t.true(hasErrorCode(error, TestingErrors.LOGIN_FAILED));
  t.true(error!.message.includes("AUTH_USER_DISABLED"));
});

test.serial("resetTestDatabase empties collections and keeps their indexes", async (t) => {
  const app = await appForTest(t);
  await createUser(app, { email: "kept-unique@example.com" });
  t.is(await User.countDocuments(), 1);

  await resetTestDatabase();
  t.is(await User.countDocuments(), 0);
  // The unique email index survived: a second user with one email is still refused.
  await User.create({ email: "twice@example.com" });
  const duplicate = await t.throwsAsync(User.create({ email: "twice@example.com" }));
  t.is((duplicate as { code?: number }).code, 11000);
});

test.serial("a test that sets an auth variable gets none filled in", async (t) => {
  const app = (await createTestApp({ env: { TOKEN_SECRET: "only-this-one-0123456789abcdef01234" } })).register(authPlugin({ userModel: User }));
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(app.build());
  t.true(hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT));
  t.true(error!.message.includes("REFRESH_TOKEN_SECRET"));
});

test.serial("createUser needs the auth plugin: APP_ACCOUNTS_UNAVAILABLE without it", async (t) => {
  const app = await createTestApp();
  t.teardown(() => app.stop());
  const error = await t.throwsAsync(createUser(app));
  t.true(hasErrorCode(error, AppAccountsErrors.UNAVAILABLE));
});
