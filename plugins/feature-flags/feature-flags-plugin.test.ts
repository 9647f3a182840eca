import test from "ava";
import { OpenFeature, ProviderEvents } from "@openfeature/server-sdk";
import type { Express } from "express";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
import type { PluginContext } from "../../kernel/plugin.js";
import { authTestApp, TestUser, uniqueEmail } from "../../test/support/auth-test-app.js";
import { FeatureFlagErrors } from "./errors.js";
import { featureFlagsPlugin } from "./feature-flags-plugin.js";
import { featureFlagModel } from "./feature-flag-model.js";
import { flagBucket } from "./flag-bucket.js";
import { FLAG_CACHE } from "./flag-cache.js";

const DOMAIN = "feature-flags-plugin-test";
const PASSWORD = "correct horse battery staple";

interface Caller {
  token?: string;
  id?: string;
}

/** One app for the whole file (flag keys are unique per test, so tests can run concurrently). */
let stopApp: (() => Promise<void> | void) | undefined;
const shared = (async () => {
  const built = await authTestApp(
    { teardown: (fn) => void (stopApp = fn) },
    {},
    {},
    (app) =>
      app.register(
        featureFlagsPlugin({
          segments: { staff: (user) => String(user.email ?? "").endsWith("@staff.example") },
          segmentsPermission: (user) => String(user.email ?? "").endsWith("@segments.example"),
          openFeatureDomain: DOMAIN,
          // This file exercises routes and evaluation; change-stream freshness has its own test.
          changeDetection: "poll",
          pollIntervalMs: 25,
        }),
      ),
  );
  return built;
})();

test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
});

async function signup(http: Express, email = uniqueEmail(), admin = false): Promise<Caller> {
  const response = await request(http).post("/auth/signup").send({ email, password: PASSWORD }).expect(201);
  if (admin) await TestUser.updateOne({ email }, { admin: true });
  return { token: response.body.data.token, id: response.body.data.userId };
}

/** The shared app and a fresh admin, as most tests begin. */
async function withAdmin(): Promise<{ http: Express; admin: Caller }> {
  const { http } = await shared;
  return { http, admin: await signup(http, uniqueEmail("admin"), true) };
}

function as(http: Express, caller: Caller) {
  const auth = (call: request.Test) => (caller.token ? call.set("Authorization", `Bearer ${caller.token}`) : call);
  return {
    get: (path: string) => auth(request(http).get(path)),
    post: (path: string) => auth(request(http).post(path)),
    patch: (path: string) => auth(request(http).patch(path)),
    delete: (path: string) => auth(request(http).delete(path)),
  };
}

let keyCounter = 0;
const uniqueKey = (label: string) => `${label}-${process.pid}-${++keyCounter}`;

/** Waits until the (polling) cache reflects a change; fails after a bounded number of tries. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 1000 && !done(value); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    value = await read();
  }
  return value;
}

async function configurationFor(http: Express, caller: Caller) {
  return (await as(http, caller).get("/feature-flags/flagConfiguration").expect(200)).body.data as Record<string, unknown>;
}

test("CRUD routes are admin-only: anonymous → 401, user → 403, admin → success", async (t) => {
  const { http, admin } = await withAdmin();
  const user = await signup(http);
  const body = { key: uniqueKey("perm"), name: "Permissions", type: "boolean", enabled: true };

  const statuses: string[] = [];
  const record = async (label: string, call: request.Test) => statuses.push(`${label} ${(await call).status}`);
  await record("anonymous create", as(http, {}).post("/feature-flags/flags").send(body));
  await record("user create", as(http, user).post("/feature-flags/flags").send(body));
  const created = await as(http, admin).post("/feature-flags/flags").send(body).expect(201);
  t.is(created.body.data.key, body.key);
  const id = created.body.data.id ?? created.body.data._id;

  for (const [method, path] of [
    ["get", "/feature-flags/flags"],
    ["get", `/feature-flags/flags/${id}`],
    ["patch", `/feature-flags/flags/${id}`],
    ["delete", `/feature-flags/flags/${id}`],
  ] as const) {
    await record(`anonymous ${method} ${path}`, as(http, {})[method](path).send({ name: "x" }));
    await record(`user ${method} ${path}`, as(http, user)[method](path).send({ name: "x" }));
  }
  t.deepEqual(
    statuses.map((line) => line.split(" ").at(-1)),
    ["401", "403", "401", "403", "401", "403", "401", "403", "401", "403"],
    statuses.join("\n"),
  );
  t.is((await as(http, admin).get("/feature-flags/flags").expect(200)).body.page, 1);
  t.is((await as(http, admin).get(`/feature-flags/flags/${id}`).expect(200)).body.data.key, body.key);
  t.is((await as(http, admin).patch(`/feature-flags/flags/${id}`).send({ name: "Renamed" }).expect(200)).body.data.name, "Renamed");
  await as(http, admin).delete(`/feature-flags/flags/${id}`).expect(204);
});

test("flags get save-time defaults; keys are trimmed; bad definitions are refused with 400", async (t) => {
  const { http, admin } = await withAdmin();
  const key = uniqueKey("defaults");
  const bool = await as(http, admin).post("/feature-flags/flags").send({ key: `  ${key}  `, name: "Bool", type: "boolean" }).expect(201);
  t.is(bool.body.data.key, key);
  t.is(bool.body.data.defaultVariant, "off");
  t.is(bool.body.data.enabled, false);
  t.is(bool.body.data.archived, false);
  t.is(bool.body.data.rolloutPercentage, 100);
  t.truthy(bool.body.data.created);

  const variant = await as(http, admin)
    .post("/feature-flags/flags")
    .send({ key: uniqueKey("variant"), name: "Variant", type: "variant", variants: [{ key: "red", weight: 40 }, { key: "blue", weight: 60 }] })
    .expect(201);
  t.is(variant.body.data.defaultVariant, "red");

  const refused = async (body: Record<string, unknown>) => {
    const response = await as(http, admin).post("/feature-flags/flags").send({ name: "Bad", ...body });
    return `${response.status} ${response.body.errors?.[0]?.code}`;
  };
  const outcomes = await Promise.all([
    refused({ key: uniqueKey("w"), type: "variant", variants: [{ key: "a", weight: 50 }, { key: "b", weight: 40 }] }),
    refused({ key: uniqueKey("neg"), type: "variant", variants: [{ key: "a", weight: 110 }, { key: "b", weight: -10 }] }),
    refused({ key: uniqueKey("dv"), type: "boolean", defaultVariant: "maybe" }),
    refused({ key: uniqueKey("dvv"), type: "variant", defaultVariant: "green", variants: [{ key: "a", weight: 100 }] }),
    refused({ key: uniqueKey("rule"), type: "boolean", rules: [{ field: "email", operator: "eq", value: "x" }] }),
    refused({ key: uniqueKey("op"), type: "boolean", rules: [{ field: "email", operator: "regex", value: ".*", enabled: true }] }),
    refused({ key: uniqueKey("type"), type: "percentage" }),
  ]);
  // Schema-level problems are caught by request validation, cross-field ones by the model.
  t.deepEqual(
    outcomes.map((outcome) => outcome.split(" ")[0]),
    ["400", "400", "400", "400", "400", "400", "400"],
    outcomes.join("\n"),
  );
  // Unique among live flags.
  const duplicate = await as(http, admin).post("/feature-flags/flags").send({ key, name: "Again", type: "boolean" }).expect(409);
  t.is(duplicate.body.errors[0].status, "409");
});

test("DELETE soft-deletes: the record stays, marked deleted, and its key can be reused", async (t) => {
  const { http, admin } = await withAdmin();
  const key = uniqueKey("soft");
  const created = await as(http, admin).post("/feature-flags/flags").send({ key, name: "Soft", type: "boolean", enabled: true }).expect(201);
  const id = created.body.data.id ?? created.body.data._id;
  await as(http, admin).delete(`/feature-flags/flags/${id}`).expect(204);
  await as(http, admin).get(`/feature-flags/flags/${id}`).expect(404);
  const stored = await featureFlagModel().findOne({ _id: id, deleted: true }).lean();
  t.is(stored?.key, key);
  await as(http, admin).post("/feature-flags/flags").send({ key, name: "Reborn", type: "boolean" }).expect(201);
});

test("the flag list is paginated and sortable", async (t) => {
  const { http, admin } = await withAdmin();
  const prefix = uniqueKey("page");
  for (const suffix of ["c", "a", "b"]) {
    await as(http, admin).post("/feature-flags/flags").send({ key: `${prefix}-${suffix}`, name: suffix, type: "boolean" }).expect(201);
  }
  const page = await as(http, admin).get(`/feature-flags/flags?key[$regex]=^${prefix}&sort=key&limit=2&page=1`).expect(200);
  t.deepEqual(page.body.data.map((flag: { key: string }) => flag.key), [`${prefix}-a`, `${prefix}-b`]);
  t.is(page.body.total, 3);
  t.true(page.body.more);
  const next = await as(http, admin).get(`/feature-flags/flags?key[$regex]=^${prefix}&sort=-key&limit=2&page=2`).expect(200);
  t.deepEqual(next.body.data.map((flag: { key: string }) => flag.key), [`${prefix}-a`]);
});

test("segments: admins and segmentsPermission users see the names; others get 401/403", async (t) => {
  const { http, admin } = await withAdmin();
  const allowed = await signup(http, `${uniqueKey("seg")}@segments.example`);
  const user = await signup(http);
  t.deepEqual((await as(http, admin).get("/feature-flags/segments").expect(200)).body, { data: ["staff"] });
  t.deepEqual((await as(http, allowed).get("/feature-flags/segments").expect(200)).body, { data: ["staff"] });
  const denied = await as(http, user).get("/feature-flags/segments").expect(403);
  t.is(denied.body.errors[0].code, "HTTP_FORBIDDEN");
  const anonymous = await as(http, {}).get("/feature-flags/segments").expect(401);
  t.is(anonymous.body.errors[0].code, "HTTP_UNAUTHENTICATED");
});

test("flagConfiguration has SPEC §2.4's exact shape per user; disabled and archived flags are omitted", async (t) => {
  const { http, admin } = await withAdmin();
  const staff = await signup(http, `${uniqueKey("s")}@staff.example`);
  const user = await signup(http);
  const keys = { on: uniqueKey("on"), split: uniqueKey("split"), off: uniqueKey("off"), archived: uniqueKey("arch"), theme: uniqueKey("theme") };
  const create = (body: Record<string, unknown>) => as(http, admin).post("/feature-flags/flags").send(body).expect(201);
  await create({ key: keys.on, name: "On", type: "boolean", enabled: true, rolloutPercentage: 100 });
  await create({ key: keys.split, name: "Split", type: "boolean", enabled: true, rolloutPercentage: 50 });
  await create({ key: keys.off, name: "Off", type: "boolean", enabled: false });
  await create({ key: keys.archived, name: "Archived", type: "boolean", enabled: true, archived: true });
  await create({
    key: keys.theme,
    name: "Theme",
    type: "variant",
    enabled: true,
    variants: [{ key: "light", weight: 0 }, { key: "dark", weight: 100 }],
    rules: [{ segment: "staff", variant: "light" }],
  });

  const mine = (data: Record<string, unknown>) => Object.fromEntries(Object.entries(data).filter(([key]) => Object.values(keys).includes(key)));
  const forUser = mine(await eventually(() => configurationFor(http, user), (data) => keys.theme in data));
  const splitOn = flagBucket(keys.split, user.id!) < 50;
  t.deepEqual(forUser, {
    [keys.on]: { variants: { on: true, off: false }, defaultVariant: "on", disabled: false },
    [keys.split]: { variants: { on: true, off: false }, defaultVariant: splitOn ? "on" : "off", disabled: false },
    [keys.theme]: { variants: { light: "light", dark: "dark" }, defaultVariant: "dark", disabled: false },
  });
  const forStaff = mine(await eventually(() => configurationFor(http, staff), (data) => keys.theme in data));
  t.is((forStaff[keys.theme] as { defaultVariant: string }).defaultVariant, "light");

  await as(http, {}).get("/feature-flags/flagConfiguration").expect(401);
});

test("the deprecated evaluate route keeps its shape and announces Deprecation and a Sunset ~90 days out", async (t) => {
  const { http, admin } = await withAdmin();
  const user = await signup(http);
  const on = uniqueKey("legacy-on");
  const variant = uniqueKey("legacy-variant");
  const disabled = uniqueKey("legacy-disabled");
  await as(http, admin).post("/feature-flags/flags").send({ key: on, name: "On", type: "boolean", enabled: true }).expect(201);
  await as(http, admin)
    .post("/feature-flags/flags")
    .send({ key: variant, name: "V", type: "variant", enabled: true, variants: [{ key: "only", weight: 100 }] })
    .expect(201);
  await as(http, admin).post("/feature-flags/flags").send({ key: disabled, name: "D", type: "boolean", enabled: false }).expect(201);

  const read = async () => as(http, user).get("/feature-flags/evaluate").expect(200);
  const response = await eventually(read, (r) => variant in r.body.data);
  t.is(response.body.data[on], true);
  t.is(response.body.data[variant], "only");
  t.false(disabled in response.body.data);
  t.is(response.headers.deprecation, "true");
  const days = (Date.parse(response.headers.sunset!) - Date.now()) / 86_400_000;
  t.true(days > 88 && days <= 90, `Sunset is ${days.toFixed(1)} days ahead`);
  t.regex(response.headers.sunset!, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  await as(http, {}).get("/feature-flags/evaluate").expect(401);
});

test("evaluateSunset sets the deprecated route's Sunset date", async (t) => {
  let stop: (() => Promise<void> | void) | undefined;
  t.teardown(() => stop?.());
  const sunset = new Date("2027-06-30T00:00:00Z");
  const { http } = await authTestApp({ teardown: (fn) => void (stop = fn) }, {}, {}, (app) =>
    app.register(featureFlagsPlugin({ openFeatureDomain: `${DOMAIN}-sunset`, changeDetection: "poll", evaluateSunset: sunset })),
  );
  const user = await signup(http);
  const response = await as(http, user).get("/feature-flags/evaluate").expect(200);
  t.is(response.headers.sunset, "Wed, 30 Jun 2027 00:00:00 GMT");
});

test("the OpenFeature provider is registered under the domain and agrees with the HTTP configuration", async (t) => {
  const { http, admin } = await withAdmin();
  const user = await signup(http);
  const key = uniqueKey("provider");
  const client = OpenFeature.getClient(DOMAIN);
  const changed = new Promise<string[] | undefined>((resolve) =>
    client.addHandler(ProviderEvents.ConfigurationChanged, (event) => {
      if (event?.flagsChanged?.includes(key)) resolve(event.flagsChanged);
    }),
  );
  await as(http, admin)
    .post("/feature-flags/flags")
    .send({ key, name: "P", type: "boolean", enabled: true, rolloutPercentage: 100, rules: [{ field: "email", operator: "contains", value: "@vip.example", enabled: false }] })
    .expect(201);
  // Polling may report another test's flag in the same notification; ours must be in it.
  t.true((await changed)?.includes(key));

  const details = await client.getBooleanDetails(key, false, { targetingKey: user.id! });
  t.is(details.value, true);
  t.is(details.reason, "SPLIT");
  const vip = await client.getBooleanDetails(key, true, { targetingKey: "someone", email: "x@vip.example" });
  t.deepEqual([vip.value, vip.reason], [false, "TARGETING_MATCH"]);
  const missing = await client.getBooleanDetails(uniqueKey("missing"), true);
  t.deepEqual([missing.value, missing.errorCode], [true, "FLAG_NOT_FOUND"]);
  t.is(await client.getNumberValue(key, 42), 42);
});

test("FLAG_CACHE exists only while the plugin runs: FEATURE_FLAGS_NOT_STARTED before start and after stop", async (t) => {
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  let early: unknown;
  // Starts before the flag plugin (registered first, no dependency on it).
  const probe = { name: "probe", start: (ctx: PluginContext) => void (early = t.throws(() => ctx.resolve(FLAG_CACHE))) };
  const app = (await createTestApp({ logger: silent }))
    .register(probe)
    .register(featureFlagsPlugin({ openFeatureDomain: `${DOMAIN}-lifecycle`, changeDetection: "poll" }));
  t.teardown(() => app.stop());
  await app.build();
  t.true(hasErrorCode(early, FeatureFlagErrors.NOT_STARTED));
  t.is(app.kernel.container.resolve(FLAG_CACHE).mode, "poll");
  await app.stop();
  t.true(hasErrorCode(t.throws(() => app.kernel.container.resolve(FLAG_CACHE)), FeatureFlagErrors.NOT_STARTED));
});

test("start-up mistakes have FEATURE_FLAGS_* codes: a bad basePath, live updates without auth", async (t) => {
  t.true(hasErrorCode(t.throws(() => featureFlagsPlugin({ basePath: "flags/" })), FeatureFlagErrors.INVALID_BASE_PATH));
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const app = (await createTestApp({ logger: silent })).register(featureFlagsPlugin({ openFeatureDomain: `${DOMAIN}-no-auth`, liveUpdates: true }));
  t.teardown(() => app.stop());
  t.true(hasErrorCode(await t.throwsAsync(() => app.build()), FeatureFlagErrors.LIVE_UPDATES_NEED_AUTH));
});

test("two apps on one domain and database: stopping the first leaves the second's OpenFeature provider answering", async (t) => {
  const { http, admin } = await withAdmin();
  const domain = `${DOMAIN}-two-apps`;
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const build = async () => {
    const app = (await createTestApp({ logger: silent })).register(featureFlagsPlugin({ openFeatureDomain: domain }));
    t.teardown(() => app.stop());
    await app.build();
    return app;
  };
  const first = await build();
  const second = await build();
  const key = uniqueKey("two-apps");
  await as(http, admin).post("/feature-flags/flags").send({ key, name: "Two apps", type: "boolean", enabled: true }).expect(201);
  const client = OpenFeature.getClient(domain);
  const details = () => client.getBooleanDetails(key, false, { targetingKey: "someone" });
  t.is((await eventually(details, (answer) => answer.reason === "SPLIT")).value, true);

  await first.stop();
  t.deepEqual([(await details()).value, (await details()).reason], [true, "SPLIT"], "the second app's provider still answers");
  await second.stop();
  t.is((await details()).reason, "No-op");
});
