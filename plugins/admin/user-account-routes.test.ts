import test from "ava";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { authPlugin, baseUserPlugin, federatedIdentityPlugin, isDisabledPlugin } from "../../index.js";
import { createTestApp, createUser, stopTestDatabase } from "../../hosts/testing.js";
import { documentedAnswerProblem } from "../../test/support/documented-answer.js";
import { adminTestApp, Gadget, testAdminOptions, type AdminTestApp } from "../../test/support/admin-test-app.js";
import { adminPlugin, auditLogModel } from "./index.js";

// The admin's account actions on a user record through the real HTTP stack — set the password
// (POST {basePath}/users/:id/password) and end every sign-in (POST .../:id/end-sign-ins): who may
// (only `<resource>:write`), what they do, what they refuse, what they record, and where they do
// not exist (non-user models, session auth).

test.after.always(() => stopTestDatabase());

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const NEW_PASSWORD = "a brand new horse battery";

let shared: Promise<AdminTestApp> | undefined;
const stops: (() => Promise<void>)[] = [];
/** What the app's accountDeletion.onDeleted was told. */
const deletedAccounts: { id: string; email?: string }[] = [];
const appOf = () =>
  (shared ??= adminTestApp("SvcApp", (fn) => stops.push(fn), testAdminOptions({ basePath: "/pw" }), {}, { accountDeletion: { onDeleted: (user) => void deletedAccounts.push({ id: user.id, email: user.email }) } }));
test.after.always(async () => {
  for (const stop of stops) await stop();
});

test("an admin sets a user's password: the user signs in with it, their sign-ins are ended, the audit log names the field only", async (t) => {
  const app = await appOf();
  const admin = await app.user({ roles: ["full"] });
  const account = await createUser(app.app, {});
  const login = await request(app.http).post("/auth/login").send({ email: account.email, password: account.password }).expect(200);
  const oldRefresh = login.body.data.refreshToken as string;

  const set = await request(app.http).post(`/pw/users/${account.id}/password`).set(auth(admin.token)).send({ password: NEW_PASSWORD }).expect(204);
  const document = (await request(app.http).get("/openapi.json").expect(200)).body;
  t.is(documentedAnswerProblem(document, "post", "/pw/users/{id}/password", set), undefined);

  await request(app.http).post("/auth/login").send({ email: account.email, password: account.password }).expect(401);
  await request(app.http).post("/auth/login").send({ email: account.email, password: NEW_PASSWORD }).expect(200);
  const refused = await request(app.http).post("/auth/refresh_token").send({ refreshToken: oldRefresh }).expect(401);
  t.is(refused.body.errors[0].code, "AUTH_REFRESH_TOKEN_INVALID");
  const revoked = await request(app.http).get("/auth/me").set(auth(login.body.data.token as string)).expect(401);
  t.is(revoked.body.errors[0].code, "AUTH_TOKEN_REVOKED");

  const entries = await auditLogModel().find({ recordId: account.id }).lean();
  t.deepEqual(entries.map((entry) => [entry.action, entry.modelName, entry.fields, entry.bulk, entry.userId]), [["update", "AdminTestUser", ["password"], false, admin.id]]);
  t.false(JSON.stringify(entries).includes(NEW_PASSWORD));

  // A user the admin created has no password until one is set here.
  const created = await request(app.http).post("/pw/users").set(auth(admin.token)).send({ email: `nopw-${Date.now().toString(36)}@example.com` }).expect(201);
  await request(app.http).post(`/pw/users/${created.body.data._id as string}/password`).set(auth(admin.token)).send({ password: NEW_PASSWORD }).expect(204);
  await request(app.http).post("/auth/login").send({ email: created.body.data.email, password: NEW_PASSWORD }).expect(200);
});

test("refusals: weak password, writeOwned (even on oneself), plain user, anonymous, bad ids, extra keys; nothing is changed", async (t) => {
  const app = await appOf();
  const [admin, support, plain] = await Promise.all([app.user({ roles: ["full"] }), app.user({ roles: ["support"] }), app.user()]);
  const target = await createUser(app.app, {});
  const path = `/pw/users/${target.id}/password`;
  const document = (await request(app.http).get("/openapi.json").expect(200)).body;
  const refuse = async (token: string | undefined, body: unknown, status: number, code: string, url = path) => {
    const call = request(app.http).post(url);
    if (token) call.set(auth(token));
    const response = await call.send(body as object).expect(status);
    t.is(response.body.errors[0].code, code, `${url} ${JSON.stringify(body)}`);
    if (url === path) t.is(documentedAnswerProblem(document, "post", "/pw/users/{id}/password", response), undefined);
    return response;
  };

  const weak = await refuse(admin.token, { password: "short" }, 400, "AUTH_WEAK_PASSWORD");
  t.is(weak.body.errors[0].source.pointer, "/password");
  await refuse(admin.token, { password: "" }, 400, "VALIDATION_INVALID_BODY");
  await refuse(admin.token, { password: "x".repeat(257) }, 400, "VALIDATION_INVALID_BODY");
  await refuse(admin.token, {}, 400, "VALIDATION_INVALID_BODY");
  await refuse(admin.token, { password: NEW_PASSWORD, admin: true }, 400, "VALIDATION_UNKNOWN_FIELD");
  await refuse(admin.token, { $set: { password: NEW_PASSWORD } }, 400, "VALIDATION_OPERATOR_IN_BODY");
  await refuse(support.token, { password: NEW_PASSWORD }, 403, "ADMIN_FIELD_NOT_PERMITTED");
  // writeOwned covers one's own user record for a PATCH, never for a password set without the current one.
  await refuse(support.token, { password: NEW_PASSWORD }, 403, "ADMIN_FIELD_NOT_PERMITTED", `/pw/users/${support.id}/password`);
  await refuse(plain.token, { password: NEW_PASSWORD }, 403, "HTTP_FORBIDDEN");
  await refuse(undefined, { password: NEW_PASSWORD }, 401, "HTTP_UNAUTHENTICATED");
  await refuse(admin.token, { password: NEW_PASSWORD }, 404, "REST_NOT_FOUND", "/pw/users/65f1c0ffee00000000000001/password");
  await refuse(admin.token, { password: NEW_PASSWORD }, 404, "REST_NOT_FOUND", "/pw/users/not-an-id/password");
  // Gadgets are no user model: no such route.
  const gadget = await Gadget.create({ title: "no password" });
  await request(app.http).post(`/pw/gadgets/${String(gadget._id)}/password`).set(auth(admin.token)).send({ password: NEW_PASSWORD }).expect(404);

  await request(app.http).post("/auth/login").send({ email: target.email, password: target.password }).expect(200);
  await request(app.http).post("/auth/login").send({ email: target.email, password: NEW_PASSWORD }).expect(401);
  t.is(await auditLogModel().countDocuments({ recordId: { $in: [target.id, support.id] } }), 0);

  // A deleted user is gone for this route too.
  await request(app.http).delete(`/pw/users/${target.id}`).set(auth(admin.token)).expect(204);
  await refuse(admin.token, { password: NEW_PASSWORD }, 404, "REST_NOT_FOUND");
});

test("an admin ends a user's sign-ins: their tokens are refused at once, the password stays, the audit log names signInVersion; the same refusals as set password", async (t) => {
  const app = await appOf();
  const [admin, support] = await Promise.all([app.user({ roles: ["full"] }), app.user({ roles: ["support"] })]);
  const account = await createUser(app.app, {});
  const login = (await request(app.http).post("/auth/login").send({ email: account.email, password: account.password }).expect(200)).body.data as { token: string; refreshToken: string };
  const path = `/pw/users/${account.id}/end-sign-ins`;
  const document = (await request(app.http).get("/openapi.json").expect(200)).body;

  for (const [token, body, status, code, url] of [
    [support.token, {}, 403, "ADMIN_FIELD_NOT_PERMITTED", path],
    [support.token, {}, 403, "ADMIN_FIELD_NOT_PERMITTED", `/pw/users/${support.id}/end-sign-ins`],
    [undefined, {}, 401, "HTTP_UNAUTHENTICATED", path],
    [admin.token, { userId: "someone" }, 400, "VALIDATION_UNKNOWN_FIELD", path],
    [admin.token, { $set: { signInVersion: 0 } }, 400, "VALIDATION_OPERATOR_IN_BODY", path],
    [admin.token, ["x"], 400, "VALIDATION_INVALID_BODY", path],
    [admin.token, {}, 404, "REST_NOT_FOUND", "/pw/users/not-an-id/end-sign-ins"],
  ] as const) {
    const call = request(app.http).post(url);
    if (token) call.set(auth(token));
    const refused = await call.send(body as object).expect(status);
    t.is(refused.body.errors[0].code, code, `${url} ${JSON.stringify(body)}`);
    if (url === path) t.is(documentedAnswerProblem(document, "post", "/pw/users/{id}/end-sign-ins", refused), undefined);
  }
  await request(app.http).get("/auth/me").set(auth(login.token)).expect(200);

  // No body at all, as a button sends it.
  const ended = await request(app.http).post(path).set(auth(admin.token)).expect(204);
  t.is(documentedAnswerProblem(document, "post", "/pw/users/{id}/end-sign-ins", ended), undefined);
  t.is((await request(app.http).get("/auth/me").set(auth(login.token)).expect(401)).body.errors[0].code, "AUTH_TOKEN_REVOKED");
  await request(app.http).post("/auth/refresh_token").send({ refreshToken: login.refreshToken }).expect(401);
  await request(app.http).post("/auth/login").send({ email: account.email, password: account.password }).expect(200);
  const entries = await auditLogModel().find({ recordId: account.id }).lean();
  t.deepEqual(entries.map((entry) => [entry.action, entry.fields, entry.userId]), [["update", ["signInVersion"], admin.id]]);
});

test("an admin lists a user's devices and signs one out: that device's tokens are refused at once, the others work; audited as endedSignIns; the same refusals", async (t) => {
  const app = await appOf();
  const [admin, support] = await Promise.all([app.user({ roles: ["full"] }), app.user({ roles: ["support"] })]);
  const account = await createUser(app.app, {});
  const signIn = async (userAgent: string) =>
    (await request(app.http).post("/auth/login").set("user-agent", userAgent).send({ email: account.email, password: account.password }).expect(200)).body.data as { token: string; refreshToken: string };
  const phone = await signIn("LostPhone/1.0");
  const laptop = await signIn("Laptop/2.0");
  const list = `/pw/users/${account.id}/sign-ins`;
  const document = (await request(app.http).get("/openapi.json").expect(200)).body;

  const listed = await request(app.http).get(list).set(auth(admin.token)).expect(200);
  t.is(documentedAnswerProblem(document, "get", "/pw/users/{id}/sign-ins", listed), undefined);
  const devices = listed.body.data as { id: string; userAgent?: string; ip?: string }[];
  t.deepEqual(
    devices.map((device) => device.userAgent),
    ["Laptop/2.0", "LostPhone/1.0"],
  );
  t.truthy(devices[0]!.ip);
  const lost = devices.find((device) => device.userAgent === "LostPhone/1.0")!;

  for (const [token, status, code, url, method] of [
    [support.token, 403, "ADMIN_FIELD_NOT_PERMITTED", list, "get"],
    [support.token, 403, "ADMIN_FIELD_NOT_PERMITTED", `${list}/${lost.id}`, "delete"],
    [undefined, 401, "HTTP_UNAUTHENTICATED", `${list}/${lost.id}`, "delete"],
    [admin.token, 404, "REST_NOT_FOUND", "/pw/users/not-an-id/sign-ins", "get"],
    [admin.token, 404, "REST_NOT_FOUND", `${list}/not-a-sign-in`, "delete"],
    [admin.token, 404, "REST_NOT_FOUND", `${list}/${"x".repeat(100)}`, "delete"],
    // Another user's sign-in id under this user's path ends nothing.
    [admin.token, 404, "REST_NOT_FOUND", `/pw/users/${support.id}/sign-ins/${lost.id}`, "delete"],
  ] as const) {
    const call = method === "get" ? request(app.http).get(url) : request(app.http).delete(url);
    if (token) call.set(auth(token));
    const refused = await call.expect(status);
    t.is(refused.body.errors[0].code, code, `${method} ${url}`);
  }
  await request(app.http).get("/auth/me").set(auth(phone.token)).expect(200);

  const ended = await request(app.http).delete(`${list}/${lost.id}`).set(auth(admin.token)).expect(204);
  t.is(documentedAnswerProblem(document, "delete", "/pw/users/{id}/sign-ins/{signInId}", ended), undefined);
  t.is((await request(app.http).get("/auth/me").set(auth(phone.token)).expect(401)).body.errors[0].code, "AUTH_TOKEN_REVOKED");
  await request(app.http).post("/auth/refresh_token").send({ refreshToken: phone.refreshToken }).expect(401);
  await request(app.http).get("/auth/me").set(auth(laptop.token)).expect(200);
  t.deepEqual(
    ((await request(app.http).get(list).set(auth(admin.token)).expect(200)).body.data as { userAgent?: string }[]).map((device) => device.userAgent),
    ["Laptop/2.0"],
  );
  const entries = await auditLogModel().find({ recordId: account.id }).lean();
  t.deepEqual(entries.map((entry) => [entry.action, entry.fields, entry.userId]), [["update", ["endedSignIns"], admin.id]]);
});

test("a user the admin deletes, alone or in bulk, is an account deleted: the password and refresh tokens are gone and the app's onDeleted is told", async (t) => {
  const app = await appOf();
  const admin = await app.user({ roles: ["full"] });
  const [alone, first, second] = await Promise.all([createUser(app.app, {}), createUser(app.app, {}), createUser(app.app, {})]);
  const signIns = new Map<string, string>();
  for (const account of [alone, first, second]) {
    signIns.set(account.id, (await request(app.http).post("/auth/login").send({ email: account.email, password: account.password }).expect(200)).body.data.refreshToken as string);
  }
  const credentials = mongoose.connection.collection("svc_auth_credentials");
  const liveTokens = mongoose.connection.collection("svc_auth_refresh_tokens");
  const gone = async (id: string) => (await credentials.countDocuments({ _id: id as never })) === 0 && (await liveTokens.countDocuments({ userId: id, revokedAt: { $exists: false } })) === 0;

  await request(app.http).delete(`/pw/users/${alone.id}`).set(auth(admin.token)).expect(204);
  t.true(await gone(alone.id));
  const bulk = await request(app.http).post("/pw/users/bulk-delete").set(auth(admin.token)).send({ ids: [first.id, second.id] }).expect(200);
  t.is(bulk.body.data.count, 2);
  for (const account of [first, second]) t.true(await gone(account.id));
  t.deepEqual(
    deletedAccounts.filter((entry) => [alone.id, first.id, second.id].includes(entry.id)).map((entry) => entry.email),
    [alone.email, first.email, second.email],
  );
  for (const refreshToken of signIns.values()) await request(app.http).post("/auth/refresh_token").send({ refreshToken }).expect(401);
});

test("the config offers setPassword on the users model only: enabled for write, disabled for writeOwned", async (t) => {
  const app = await appOf();
  const [admin, support] = await Promise.all([app.user({ roles: ["full"] }), app.user({ roles: ["support"] })]);
  const models = async (token: string) => (await request(app.http).get("/pw/config").set(auth(token)).expect(200)).body.data.models as { name: string; actions: Record<string, unknown> }[];
  const adminModels = await models(admin.token);
  t.deepEqual(adminModels.find((model) => model.name === "AdminTestUser")?.actions.setPassword, { disabled: false });
  t.deepEqual(adminModels.find((model) => model.name === "AdminTestUser")?.actions.endSignIns, { disabled: false });
  t.is(adminModels.find((model) => model.name === "Gadget")?.actions.setPassword, undefined);
  t.is(adminModels.find((model) => model.name === "AdminAuditLogEntry")?.actions.setPassword, undefined);
  t.deepEqual((await models(support.token)).find((model) => model.name === "AdminTestUser")?.actions.setPassword, { disabled: true });
  t.deepEqual((await models(support.token)).find((model) => model.name === "AdminTestUser")?.actions.endSignIns, { disabled: true });
  t.is(adminModels.find((model) => model.name === "Gadget")?.actions.endSignIns, undefined);
});

const sessionUserSchema = new Schema({ name: { type: String } }, { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } });
sessionUserSchema.plugin(baseUserPlugin);
sessionUserSchema.plugin(isDisabledPlugin);
sessionUserSchema.plugin(federatedIdentityPlugin);
const SetPasswordSessionUser = mongoose.models.SetPasswordSessionUser ?? mongoose.model("SetPasswordSessionUser", sessionUserSchema);

test("under session auth (no ACCOUNTS) there is no set-password route, and the config says so", async (t) => {
  const app = (await createTestApp({ env: { AUTH_PROVIDER: "session-auth" } }))
    .register(authPlugin({ userModel: SetPasswordSessionUser, sessionAuth: {} }))
    .register(adminPlugin({ models: [{ model: SetPasswordSessionUser as never, routePath: "/users", displayName: "Users", listFields: ["email"] }] }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const email = `session-${Date.now().toString(36)}@example.com`;
  const password = "correct horse battery staple";
  await request(http).post("/api/auth/signup/email").send({ email, password, name: "Ada" }).expect(201);
  await SetPasswordSessionUser.updateOne({ email }, { $set: { admin: true } });
  const signedIn = await request(http).post("/api/auth/signin/email").send({ email, password }).expect(200);
  const token = signedIn.body.data.token as string;

  const config = (await request(http).get("/admin/config").set(auth(token)).expect(200)).body.data;
  const users = config.models.find((model: { name: string }) => model.name === "SetPasswordSessionUser");
  t.is(users.actions.update.disabled, false);
  t.false("setPassword" in users.actions);
  t.false("endSignIns" in users.actions);
  const user = await SetPasswordSessionUser.findOne({ email }).lean<{ _id: unknown }>();
  await request(http).post(`/admin/users/${String(user!._id)}/password`).set(auth(token)).send({ password: "another horse battery" }).expect(404);
  const document = (await request(http).get("/openapi.json").expect(200)).body;
  t.is(document.paths["/admin/users/{id}/password"], undefined);
  t.is(document.paths["/admin/users/{id}/end-sign-ins"], undefined);
  await request(http).post(`/admin/users/${String(user!._id)}/end-sign-ins`).set(auth(token)).expect(404);
});
