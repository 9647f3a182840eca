import test from "ava";
import type { Express } from "express";
import request from "supertest";
import { createTestApp, createUser, loginAs, stopTestDatabase } from "../../hosts/testing.js";
import { authPlugin } from "../auth/index.js";
import { AdminErrors, adminPlugin, auditLogModel, inMemoryRoleResolver, ROLE_RESOLVER, type AdminOptions } from "./index.js";
import { startTestRedis } from "../../test/support/redis-server.js";
import { AdminTestUser, Gadget, HOSTS, adminTestApp, testAdminOptions, type AdminTestApp, type Host } from "../../test/support/admin-test-app.js";

test.after.always(() => stopTestDatabase());

// One app per host for the file; every test makes its own users and records.
const stops: (() => Promise<void>)[] = [];
const apps = new Map<Host, Promise<AdminTestApp>>();
const appOf = (host: Host) => {
  let app = apps.get(host);
  if (!app) {
    app = adminTestApp(host, (fn) => stops.push(fn));
    apps.set(host, app);
  }
  return app;
};
test.after.always(async () => {
  for (const stop of stops) await stop();
});

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

async function gadget(http: Express, token: string, body: Record<string, unknown>): Promise<string> {
  const response = await request(http).post("/gadgets").set(auth(token)).send(body).expect(201);
  return response.body.data._id as string;
}

for (const host of HOSTS) {
  test(`${host}: every admin route answers an admin`, async (t) => {
    const { http, user } = await appOf(host);
    const admin = await user({ roles: ["full"] });
    const owner = await user();
    const id = await gadget(http, owner.token, { title: `route-${host}` });

    const config = await request(http).get("/admin/config").set(auth(admin.token)).expect(200);
    t.deepEqual(config.body.data.models.map((model: { name: string }) => model.name).sort(), ["AdminAuditLogEntry", "AdminTestUser", "Gadget"]);

    const list = await request(http).get(`/admin/gadgets?search=route-${host}&sort=-created&limit=50`).set(auth(admin.token)).expect(200);
    t.is(list.body.data.length, 1);
    t.deepEqual(list.body.data[0]._adminCapabilities, { update: true, delete: true });
    t.is(list.body.total, 1);

    const read = await request(http).get(`/admin/gadgets/${id}`).set(auth(admin.token)).expect(200);
    t.is(read.body.data.title, `route-${host}`);
    t.deepEqual(read.body.data._adminCapabilities, { update: true, delete: true });

    const created = await request(http).post("/admin/gadgets").set(auth(admin.token)).send({ title: "by admin" }).expect(201);
    const createdId = created.body.data._id as string;
    await request(http).patch(`/admin/gadgets/${createdId}`).set(auth(admin.token)).send({ done: true }).expect(200);
    await request(http).delete(`/admin/gadgets/${createdId}`).set(auth(admin.token)).expect(204);
    // Soft delete: gone from the admin, still stored.
    await request(http).get(`/admin/gadgets/${createdId}`).set(auth(admin.token)).expect(404);
    t.is((await Gadget.findOne({ _id: createdId, deleted: true }).lean())?.deleted, true);

    const second = await gadget(http, owner.token, { title: "second" });
    const bulkUpdate = await request(http).post("/admin/gadgets/bulk-update").set(auth(admin.token)).send({ ids: [id, second], data: { note: "bulk" } }).expect(200);
    t.deepEqual(bulkUpdate.body.data, { results: [{ id, status: 200 }, { id: second, status: 200 }], count: 2 });
    t.is((await Gadget.findById(second).lean())?.note, "bulk");
    const bulkDelete = await request(http).post("/admin/gadgets/bulk-delete").set(auth(admin.token)).send({ ids: [second] }).expect(200);
    t.is(bulkDelete.body.data.count, 1);

    await request(http).get("/admin/scripts").set(auth(admin.token)).expect(200);
    await request(http).get("/admin/tasks").set(auth(admin.token)).expect(200);
    await request(http).get("/admin/roles").set(auth(admin.token)).expect(200);
    const version = await request(http).get("/admin/version").set(auth(admin.token)).expect(200);
    t.is(version.body.data.framework.name, "svc");
    await request(http).get("/admin/configuration").set(auth(admin.token)).expect(200);
    const audit = await request(http).get(`/admin/audit-log?recordId=${createdId}`).set(auth(admin.token)).expect(200);
    t.deepEqual(audit.body.data.map((entry: { action: string }) => entry.action).sort(), ["create", "delete", "update"]);

    const users = await request(http).get("/admin/users").set(auth(admin.token)).expect(200);
    t.true(users.body.data.length >= 2);
  });

  test(`${host}: config per caller — full admin, support, plain user, anonymous`, async (t) => {
    const { http, user } = await appOf(host);
    const [full, support, plain, noAccess] = await Promise.all([user({ roles: ["full"] }), user({ roles: ["support"] }), user(), user({ roles: ["no-access"] })]);

    const admin = (await request(http).get("/admin/config").set(auth(full.token)).expect(200)).body.data;
    const gadgets = admin.models.find((model: { name: string }) => model.name === "Gadget");
    t.like(gadgets, { routePath: "/admin/gadgets", displayName: "Gadgets", listFields: ["title", "done", "status", "tags", "created"], defaultSort: "-created" });
    t.deepEqual(gadgets.fields.title, { type: "string", required: true, description: "What it is", maxLength: 200 });
    t.deepEqual(gadgets.fields.status, { type: "string", required: false, description: "Condition", enum: ["new", "used"], default: "new" });
    // What a write would be refused for is marked, so a UI leaves it out of its forms: the owner
    // field (set from the caller on create), the id and the timestamps.
    t.deepEqual(gadgets.fields.ownerId, { type: "objectid", required: false, description: "Owner", ref: "AdminTestUser", readOnly: true });
    t.like(gadgets.fields.tags, { type: "array", items: { type: "string" } });
    t.like(gadgets.fields.created, { type: "date", readOnly: true });
    t.like(gadgets.fields._id, { type: "objectid", readOnly: true });
    t.is(gadgets.fields.title.readOnly, undefined);
    t.is(gadgets.fields.done.type, "boolean");
    t.false(gadgets.actions.create.disabled);
    t.like(admin.platformTools, { scripts: { visible: true, run: { disabled: false } }, roles: { visible: true }, version: { visible: true }, configuration: { visible: true } });

    const supportConfig = (await request(http).get("/admin/config").set(auth(support.token)).expect(200)).body.data;
    t.deepEqual(supportConfig.models.map((model: { name: string }) => model.name).sort(), ["AdminTestUser", "Gadget"]);
    const supportGadgets = supportConfig.models.find((model: { name: string }) => model.name === "Gadget");
    t.deepEqual(supportGadgets.actions, { create: { disabled: false }, update: { disabled: false }, delete: { disabled: false }, bulkUpdate: { disabled: false }, bulkDelete: { disabled: false } });
    t.like(supportConfig.platformTools, { scripts: { visible: false, run: { disabled: true } }, roles: { visible: false }, version: { visible: false }, configuration: { visible: false } });

    const refused = await request(http).get("/admin/config").set(auth(plain.token)).expect(403);
    t.is(refused.body.errors[0].code, "HTTP_FORBIDDEN");
    await request(http).get("/admin/config").set(auth(noAccess.token)).expect(403);
    await request(http).get("/admin/gadgets").set(auth(noAccess.token)).expect(403);
    const anonymous = await request(http).get("/admin/config").expect(401);
    t.is(anonymous.body.errors[0].code, "HTTP_UNAUTHENTICATED");
  });
}

test("writeOwned: support changes and deletes its own records, never others'", async (t) => {
  const { http, user } = await appOf("SvcApp");
  const support = await user({ roles: ["support"] });
  const other = await user();
  const created = await request(http).post("/admin/gadgets").set(auth(support.token)).send({ title: "mine" }).expect(201);
  const mine = created.body.data._id as string;
  t.is(created.body.data.ownerId, support.id);
  const theirs = await gadget(http, other.token, { title: "theirs" });

  await request(http).patch(`/admin/gadgets/${mine}`).set(auth(support.token)).send({ done: true }).expect(200);
  const refused = await request(http).patch(`/admin/gadgets/${theirs}`).set(auth(support.token)).send({ done: true }).expect(403);
  t.is(refused.body.errors[0].code, "HTTP_FORBIDDEN");
  t.false((await Gadget.findById(theirs).lean())?.done);
  await request(http).delete(`/admin/gadgets/${theirs}`).set(auth(support.token)).expect(403);
  t.false((await Gadget.findById(theirs).lean())?.deleted);
  // Read covers everyone's records; capabilities say what support may do with each.
  const read = await request(http).get(`/admin/gadgets/${theirs}`).set(auth(support.token)).expect(200);
  t.deepEqual(read.body.data._adminCapabilities, { update: false, delete: false });
  const own = await request(http).get(`/admin/gadgets/${mine}`).set(auth(support.token)).expect(200);
  t.deepEqual(own.body.data._adminCapabilities, { update: true, delete: true });
  await request(http).delete(`/admin/gadgets/${mine}`).set(auth(support.token)).expect(204);
});

test("_adminCapabilities in a list are per record", async (t) => {
  const { http, user } = await appOf("SvcApp");
  const support = await user({ roles: ["support"] });
  const other = await user();
  const tag = `caps-${Date.now()}`;
  await request(http).post("/admin/gadgets").set(auth(support.token)).send({ title: `${tag} mine` }).expect(201);
  await gadget(http, other.token, { title: `${tag} theirs` });
  const list = await request(http).get(`/admin/gadgets?search=${tag}&sort=title`).set(auth(support.token)).expect(200);
  t.deepEqual(
    list.body.data.map((record: { title: string; _adminCapabilities: unknown }) => [record.title, record._adminCapabilities]),
    [
      [`${tag} mine`, { update: true, delete: true }],
      [`${tag} theirs`, { update: false, delete: false }],
    ],
  );
});

test("bulk with mixed authorisation refuses the whole request and writes nothing", async (t) => {
  const { http, user } = await appOf("SvcApp");
  const support = await user({ roles: ["support"] });
  const other = await user();
  const mine = (await request(http).post("/admin/gadgets").set(auth(support.token)).send({ title: "bulk mine" }).expect(201)).body.data._id as string;
  const theirs = await gadget(http, other.token, { title: "bulk theirs" });
  const missing = "65f000000000000000000abc";

  const refused = await request(http).post("/admin/gadgets/bulk-update").set(auth(support.token)).send({ ids: [mine, theirs, missing], data: { note: "x" } }).expect(403);
  t.is(refused.body.errors[0].code, AdminErrors.BULK_REFUSED.code);
  t.deepEqual(refused.body.errors[0].meta.results, [
    { id: theirs, status: 403, code: "HTTP_FORBIDDEN" },
    { id: missing, status: 404, code: "REST_NOT_FOUND" },
  ]);
  t.is((await Gadget.findById(mine).lean())?.note, undefined);
  await request(http).post("/admin/gadgets/bulk-delete").set(auth(support.token)).send({ ids: [mine, theirs] }).expect(403);
  t.false((await Gadget.findById(mine).lean())?.deleted);

  const allowed = await request(http).post("/admin/gadgets/bulk-update").set(auth(support.token)).send({ ids: [mine], data: { note: "ok" } }).expect(200);
  t.deepEqual(allowed.body.data.results, [{ id: mine, status: 200 }]);
  const audit = await auditLogModel().find({ recordId: mine, bulk: true }).lean();
  t.deepEqual(audit.map((entry) => [entry.action, entry.fields, entry.userId]), [["update", ["note"], support.id]]);
});

test("bulk bodies are bounded and validated like PATCH", async (t) => {
  const { http, user } = await appOf("SvcApp");
  const admin = await user({ admin: true });
  const ids = Array.from({ length: 501 }, (_, index) => index.toString(16).padStart(24, "0"));
  const tooMany = await request(http).post("/admin/gadgets/bulk-delete").set(auth(admin.token)).send({ ids }).expect(400);
  t.is(tooMany.body.errors[0].code, "VALIDATION_INVALID_BODY");
  const id = await gadget(http, admin.token, { title: "bounded" });
  const badValue = await request(http).post("/admin/gadgets/bulk-update").set(auth(admin.token)).send({ ids: [id], data: { status: "broken" } }).expect(400);
  t.is(badValue.body.errors[0].title, "Request validation failed");
  const readOnly = await request(http).post("/admin/gadgets/bulk-update").set(auth(admin.token)).send({ ids: [id], data: { ownerId: admin.id } }).expect(400);
  t.is(readOnly.body.errors[0].code, "VALIDATION_READ_ONLY_FIELD");
  const operator = await request(http).post("/admin/gadgets/bulk-update").set(auth(admin.token)).send({ ids: [id], data: { $set: { title: "x" } } }).expect(400);
  t.is(operator.body.errors[0].code, "VALIDATION_OPERATOR_IN_BODY");
  // Unknown fields and dotted paths, which the PATCH of one record refuses too (not 200 for nothing written).
  for (const data of [{ bogus: 1 }, { "title.0": "x" }, { title: "kept?", colour: "red" }]) {
    const unknown = await request(http).post("/admin/gadgets/bulk-update").set(auth(admin.token)).send({ ids: [id], data }).expect(400);
    t.is(unknown.body.errors[0].code, "VALIDATION_UNKNOWN_FIELD", JSON.stringify(data));
    t.is((await request(http).patch(`/admin/gadgets/${id}`).set(auth(admin.token)).send(data).expect(400)).body.errors[0].code, "VALIDATION_UNKNOWN_FIELD");
  }
  const badId = await request(http).post("/admin/gadgets/bulk-delete").set(auth(admin.token)).send({ ids: [{ $ne: null }] }).expect(400);
  t.is(badId.body.errors[0].code, "VALIDATION_OPERATOR_IN_BODY");
  t.is((await Gadget.findById(id).lean())?.title, "bounded");
});

test("every admin write is in the audit log: who, what, which fields", async (t) => {
  const { http, user } = await appOf("SvcApp");
  const admin = await user({ roles: ["full"] });
  const id = (await request(http).post("/admin/gadgets").set(auth(admin.token)).send({ title: "audited", note: "n" }).expect(201)).body.data._id as string;
  await request(http).patch(`/admin/gadgets/${id}`).set(auth(admin.token)).send({ title: "audited 2" }).expect(200);
  await request(http).delete(`/admin/gadgets/${id}`).set(auth(admin.token)).expect(204);
  const entries = await auditLogModel().find({ recordId: id }).sort({ created: 1, _id: 1 }).lean();
  t.deepEqual(
    entries.map((entry) => ({ action: entry.action, modelName: entry.modelName, fields: entry.fields, userId: entry.userId, bulk: entry.bulk })),
    [
      { action: "create", modelName: "Gadget", fields: ["title", "note", "ownerId"], userId: admin.id, bulk: false },
      { action: "update", modelName: "Gadget", fields: ["title"], userId: admin.id, bulk: false },
      { action: "delete", modelName: "Gadget", fields: [], userId: admin.id, bulk: false },
    ],
  );
  t.true(entries.every((entry) => entry.created instanceof Date));
  // The audit log is read-only, and readable only with its own read permission.
  const support = await user({ roles: ["support"] });
  await request(http).get("/admin/audit-log").set(auth(support.token)).expect(403);
  await request(http).post("/admin/audit-log").set(auth(admin.token)).send({ action: "create" }).expect(403);
  await request(http).delete(`/admin/audit-log/${String(entries[0]!._id)}`).set(auth(admin.token)).expect(403);
});

test("hostile input is refused with a 4xx and writes nothing", async (t) => {
  const { http, user } = await appOf("SvcApp");
  const support = await user({ roles: ["support"] });
  const admin = await user({ roles: ["full"] });
  const other = await user();
  // Other tests write concurrently: count only what these users could have written.
  const mine = { ownerId: { $in: [support.id, admin.id, other.id] } };
  const before = await Gadget.countDocuments(mine);
  const usersBefore = await AdminTestUser.countDocuments({ email: "sneaky@example.com" });

  const operatorFilter = await request(http).get("/admin/gadgets?title[$where]=1").set(auth(admin.token)).expect(400);
  t.is(operatorFilter.body.errors[0].code, "REST_OPERATOR_NOT_ALLOWED");
  await request(http).get("/admin/gadgets?search[$ne]=x").set(auth(admin.token)).expect(400);
  await request(http).get("/admin/gadgets?search=").set(auth(admin.token)).expect(400);
  await request(http).get(`/admin/gadgets?search=${"a".repeat(101)}`).set(auth(admin.token)).expect(400);
  // A search term is text, never a pattern: ".*" matches only a literal ".*".
  const literal = await request(http).get("/admin/gadgets?search=.*").set(auth(admin.token)).expect(200);
  t.is(literal.body.total, 0);
  await request(http).get("/admin/gadgets?ownerId=1").set(auth(admin.token)).expect(400);

  const dollar = await request(http).post("/admin/gadgets").set(auth(admin.token)).send({ title: "x", tags: [{ $gt: "" }] }).expect(400);
  t.is(dollar.body.errors[0].code, "VALIDATION_OPERATOR_IN_BODY");
  await request(http).post("/admin/gadgets").set(auth(admin.token)).send({ title: "x", ownerId: other.id }).expect(400);

  // Mass assignment by a role without users:write.
  const escalate = await request(http).patch(`/admin/users/${support.id}`).set(auth(support.token)).send({ admin: true }).expect(403);
  t.is(escalate.body.errors[0].code, AdminErrors.FIELD_NOT_PERMITTED.code);
  await request(http).patch(`/admin/users/${support.id}`).set(auth(support.token)).send({ roles: ["full"] }).expect(403);
  // Nor their sign-in identity: the email is read-only on PATCH /auth/me, and here too.
  const email = await request(http).patch(`/admin/users/${support.id}`).set(auth(support.token)).send({ email: "taken-over@example.com" }).expect(403);
  t.is(email.body.errors[0].code, AdminErrors.FIELD_NOT_PERMITTED.code);
  await request(http).post("/admin/users").set(auth(support.token)).send({ email: "sneaky@example.com", admin: true }).expect(403);
  await request(http).post("/admin/users/bulk-update").set(auth(support.token)).send({ ids: [support.id], data: { roles: ["full"] } }).expect(403);
  const self = await AdminTestUser.findById(support.id).lean<{ admin: boolean; roles: string[] }>();
  t.deepEqual([self?.admin, self?.roles], [false, ["support"]]);
  // Their own name is theirs to change; another user's is not.
  await request(http).patch(`/admin/users/${support.id}`).set(auth(support.token)).send({ name: "Sam" }).expect(200);
  await request(http).patch(`/admin/users/${other.id}`).set(auth(support.token)).send({ name: "Not yours" }).expect(403);

  // Plain users cannot reach the admin at all, even for their own records.
  const own = await gadget(http, other.token, { title: "own" });
  await request(http).get("/admin/gadgets").set(auth(other.token)).expect(403);
  await request(http).patch(`/admin/gadgets/${own}`).set(auth(other.token)).send({ title: "via admin" }).expect(403);
  await request(http).get("/admin/gadgets").expect(401);

  t.is(await Gadget.countDocuments(mine), before + 1);
  t.is(await AdminTestUser.countDocuments({ email: "sneaky@example.com" }), usersBefore);
});

test("authorize replaces the standard decision for its model", async (t) => {
  const options = testAdminOptions({ basePath: "/backoffice" });
  const withAuthorize: AdminOptions = {
    ...options,
    models: [
      {
        ...options.models[0]!,
        adminAccess: {
          // Anyone with admin:access may read; only users named "Editor" may write, and only records with a name.
          authorize: ({ action, instance, user }) =>
            action === "list" || action === "read" || (user?.name === "Editor" && (instance === undefined || typeof (instance as { name?: unknown }).name === "string")),
        },
      },
    ],
  };
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), withAuthorize);
  const editor = await app.user({ roles: ["tasks-viewer"], name: "Editor" });
  const viewer = await app.user({ roles: ["tasks-viewer"], name: "Viewer" });
  const target = await app.user({ name: "Target" });
  await request(app.http).get(`/backoffice/users/${target.id}`).set(auth(viewer.token)).expect(200);
  await request(app.http).patch(`/backoffice/users/${target.id}`).set(auth(viewer.token)).send({ name: "no" }).expect(403);
  const read = await request(app.http).get(`/backoffice/users/${target.id}`).set(auth(editor.token)).expect(200);
  t.deepEqual(read.body.data._adminCapabilities, { update: true, delete: true });
  await request(app.http).patch(`/backoffice/users/${target.id}`).set(auth(editor.token)).send({ name: "Renamed" }).expect(200);
  // The gate still applies: authorize never opens the admin to someone without admin:access.
  const outsider = await app.user({ name: "Editor" });
  await request(app.http).get(`/backoffice/users/${target.id}`).set(auth(outsider.token)).expect(403);
});

test("without accessControl the admin is for admin: true users only", async (t) => {
  const app = await adminTestApp("setupServer", (fn) => t.teardown(fn), { ...testAdminOptions({ basePath: "/staff" }), accessControl: undefined });
  const admin = await app.user({ admin: true });
  const full = await app.user({ roles: ["full"] });
  const config = await request(app.http).get("/staff/config").set(auth(admin.token)).expect(200);
  t.true(config.body.data.platformTools.configuration.visible);
  await request(app.http).get("/staff/config").set(auth(full.token)).expect(403);
  await request(app.http).get("/staff/gadgets").set(auth(full.token)).expect(403);
  await request(app.http).get("/staff/gadgets").set(auth(admin.token)).expect(200);
});

test("a bound ROLE_RESOLVER turns on role-based access without accessControl", async (t) => {
  const app = (await createTestApp())
    .register(authPlugin({ userModel: AdminTestUser }))
    .register({
      name: "my-roles",
      register(ctx) {
        ctx.container.bind(ROLE_RESOLVER, { useValue: inMemoryRoleResolver([{ name: "gadget-reader", permissions: ["admin:access", "x:read"] }]) });
      },
    })
    .register(adminPlugin({ basePath: "/bound-roles", models: [{ model: Gadget, routePath: "/gadgets", displayName: "Gadgets", listFields: ["title"], adminAccess: { resource: "x" } }] }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const signIn = async (fields: Record<string, unknown>) => `Bearer ${await loginAs(app, await createUser(app, fields))}`;
  const reader = await signIn({ roles: ["gadget-reader"] });
  t.is((await request(http).get("/bound-roles/gadgets").set("Authorization", reader)).status, 200);
  t.is((await request(http).post("/bound-roles/gadgets").set("Authorization", reader).send({ title: "no write" })).status, 403);
  t.is((await request(http).get("/bound-roles/gadgets").set("Authorization", await signIn({ roles: [] }))).status, 403);
});

test("the configuration view never shows a secret", async (t) => {
  // CACHE_URL is read: the app connects to it, so it names a real Redis that wants its password.
  const redis = await startTestRedis({ password: "cache-password-42" });
  t.teardown(() => redis.stop());
  const secrets = {
    AI_API_KEY: "sk-live-ai-key-1234567890",
    WEBHOOK_SECRET: "whsec-0123456789abcdef",
    MAIL_ADAPTER_API_KEY: "SG.mail-key-0987654321",
    CACHE_URL: redis.url,
    ERRORTRACKER_DSN: "https://dsn-public-key-77@errors.example.com/1",
    APP_REGION: "eu-west",
    APP_LEAK: "contains whsec-0123456789abcdef inside",
  };
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), testAdminOptions({ basePath: "/cfg", configurationKeys: ["APP_REGION", "APP_LEAK"] }), secrets);
  const admin = await app.user({ roles: ["full"] });
  const response = await request(app.http).get("/cfg/configuration").set(auth(admin.token)).expect(200);
  const text = JSON.stringify(response.body);
  for (const value of ["sk-live-ai-key-1234567890", "whsec-0123456789abcdef", "SG.mail-key-0987654321", "cache-password-42", "dsn-public-key-77"]) t.false(text.includes(value), value);
  t.is(response.body.data.environment.AI_API_KEY, "[REDACTED]");
  t.is(response.body.data.environment.TOKEN_SECRET, "[REDACTED]");
  t.is(response.body.data.environment.CACHE_URL, `redis://****@127.0.0.1:${redis.port}`);
  t.is(response.body.data.environment.APP_REGION, "eu-west");
  t.is(response.body.data.environment.APP_LEAK, "[REDACTED]");
  const support = await app.user({ roles: ["support"] });
  await request(app.http).get("/cfg/configuration").set(auth(support.token)).expect(403);
  await request(app.http).get("/cfg/version").set(auth(support.token)).expect(403);
});
