import test from "ava";
import type { Express } from "express";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { ClientFaultWatch } from "../../test/support/client-fault-watch.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { configureOpenApiValidator, ValidationErrors } from "../validation/index.js";
import { featureFlagModel, featureFlagsPlugin } from "./index.js";

test.after.always(() => stopTestDatabase());

const tokens = new TokenMap();
let flagCount = 0;
/** A flag key unique in this file (tests share the database). */
const uniqueKey = (label: string) => `crud-${label}-${process.pid}-${++flagCount}`;

async function flagApp(t: import("ava").ExecutionContext): Promise<{ http: Express; admin: string; watch: ClientFaultWatch }> {
  const watch = new ClientFaultWatch();
  const app = watch
    .attach(await createTestApp({ logger: watch.logger }))
    .register(tokens.plugin())
    .register(featureFlagsPlugin({ changeDetection: "poll" }));
  const http = await app.build();
  t.teardown(() => app.stop());
  return { http, admin: tokens.user(`flag-admin-${++flagCount}`, { admin: true }).auth, watch };
}

test("a rule value with a key containing NUL (any depth) is 400 VALIDATION_OPERATOR_IN_BODY, on create and update, nothing written", async (t) => {
  const { http, admin, watch } = await flagApp(t);
  const key = uniqueKey("nul");
  for (const value of [{ "a\u0000b": 1 }, { nested: [{ ok: 1 }, { "\u0000": "x" }] }]) {
    const response = await request(http)
      .post("/feature-flags/flags")
      .set("Authorization", admin)
      .send({ key, name: "Nul", type: "boolean", rules: [{ field: "plan", operator: "eq", value, enabled: true }] })
      .expect(400);
    t.is(response.body.errors[0].code, ValidationErrors.OPERATOR_IN_BODY.code);
    t.regex(response.body.errors[0].source.pointer, /^\/rules\/0\/value\//);
  }
  t.is(await featureFlagModel().countDocuments({ key }), 0);

  const created = await request(http).post("/feature-flags/flags").set("Authorization", admin).send({ key, name: "Nul", type: "boolean" }).expect(201);
  const patched = await request(http)
    .patch(`/feature-flags/flags/${created.body.data.id}`)
    .set("Authorization", admin)
    .send({ rules: [{ field: "plan", operator: "eq", value: { "k\u0000": 1 }, enabled: true }] })
    .expect(400);
  t.is(patched.body.errors[0].code, ValidationErrors.OPERATOR_IN_BODY.code);
  t.deepEqual((await featureFlagModel().findOne({ key }).lean())?.rules, []);
  // A NUL in a list filter on the CRUD routes is refused the same way.
  const listed = await request(http).get("/feature-flags/flags?key=a%00b").set("Authorization", admin).expect(400);
  t.is(listed.body.errors[0].code, ValidationErrors.INVALID_QUERY.code);
  watch.assertNoServerFault(t);
});

test("null, \"\", 0 or false for rules or variants is 400 VALIDATION_INVALID_BODY on create and update, never a hook crash", async (t) => {
  const { http, admin, watch } = await flagApp(t);
  for (const field of ["rules", "variants"]) {
    for (const wrong of [null, "", 0, false]) {
      const key = uniqueKey("list");
      const response = await request(http)
        .post("/feature-flags/flags")
        .set("Authorization", admin)
        .send({ key, name: "List", type: field === "variants" ? "variant" : "boolean", [field]: wrong })
        .expect(400);
      t.is(response.body.errors[0].code, ValidationErrors.INVALID_BODY.code, `${field}: ${JSON.stringify(wrong)}`);
      t.is(response.body.errors[0].source.pointer, `/${field}`);
      t.is(await featureFlagModel().countDocuments({ key }), 0);
    }
  }
  const key = uniqueKey("patched");
  const rules = [{ field: "plan", operator: "eq", value: "pro", enabled: true }];
  const created = await request(http).post("/feature-flags/flags").set("Authorization", admin).send({ key, name: "Patched", type: "boolean", rules }).expect(201);
  for (const wrong of ["", 0, false]) {
    const response = await request(http).patch(`/feature-flags/flags/${created.body.data.id}`).set("Authorization", admin).send({ rules: wrong }).expect(400);
    t.is(response.body.errors[0].code, ValidationErrors.INVALID_BODY.code);
  }
  t.like((await featureFlagModel().findOne({ key }).lean())?.rules, rules);
  // null itself empties the list, as PATCH null does for every field with a default.
  const emptied = await request(http).patch(`/feature-flags/flags/${created.body.data.id}`).set("Authorization", admin).send({ rules: null }).expect(200);
  t.deepEqual(emptied.body.data.rules, []);
  watch.assertNoServerFault(t);
});

test("with request validation off, a null list reaches the model and is still 400, not a crash in its hook", async (t) => {
  const watch = new ClientFaultWatch();
  const app = watch
    .attach(await createTestApp({ logger: watch.logger }))
    .register(configureOpenApiValidator({ validateRequests: false }))
    .register(tokens.plugin())
    .register(featureFlagsPlugin({ changeDetection: "poll" }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const admin = tokens.user("unvalidated-admin", { admin: true }).auth;
  for (const field of ["rules", "variants"]) {
    const response = await request(http).post("/feature-flags/flags").set("Authorization", admin).send({ key: uniqueKey("off"), name: "Off", type: "boolean", [field]: null }).expect(400);
    t.is(response.body.errors[0].code, ValidationErrors.FAILED.code);
    t.is(response.body.errors[0].source.pointer, `/${field}`);
  }
  watch.assertNoServerFault(t);
});
