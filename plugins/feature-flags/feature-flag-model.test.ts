import test from "ava";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { featureFlagModel, featureFlagsPlugin } from "./index.js";

test.after.always(() => stopTestDatabase());

/** An app with the flags plugin (its own OpenFeature domain), an admin, and `create` posting a flag as that admin. */
async function flagAdmin(t: { teardown: (fn: () => Promise<void>) => void }, domain: string, defaults: Record<string, unknown> = {}) {
  const tokens = new TokenMap();
  const app = (await createTestApp()).register(tokens.plugin()).register(featureFlagsPlugin({ openFeatureDomain: domain, changeDetection: "poll" }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const admin = tokens.user(`${domain}-admin`, { admin: true }).auth;
  const create = (body: Record<string, unknown>) => request(http).post("/feature-flags/flags").set("Authorization", admin).send({ name: "N", enabled: true, ...defaults, ...body });
  return { http, admin, create };
}

test("rollout percentages and variant weights are whole numbers: a fraction is 400 VALIDATION_FAILED, nothing written", async (t) => {
  const { http, admin, create } = await flagAdmin(t, "flag-model-test");
  const key = (label: string) => `model-${label}-${process.pid}`;

  // Buckets are whole: 0.5 % would have reached 1 % of users, 33.33/33.33/33.34 split 34/33/33.
  const canary = await create({ key: key("canary"), type: "boolean", rolloutPercentage: 0.5 }).expect(400);
  t.is(canary.body.errors[0].code, "VALIDATION_FAILED");
  t.is(canary.body.errors[0].source.pointer, "/rolloutPercentage");
  t.regex(canary.body.errors[0].detail, /whole number/);
  const thirds = await create({
    key: key("thirds"),
    type: "variant",
    variants: [{ key: "a", weight: 33.33 }, { key: "b", weight: 33.33 }, { key: "c", weight: 33.34 }],
  }).expect(400);
  t.is(thirds.body.errors[0].source.pointer, "/variants/0/weight");
  t.is(await featureFlagModel().countDocuments({ key: { $in: [key("canary"), key("thirds")] } }), 0);

  await create({ key: key("whole"), type: "variant", variants: [{ key: "a", weight: 33 }, { key: "b", weight: 33 }, { key: "c", weight: 34 }] }).expect(201);
  const flag = await create({ key: key("one"), type: "boolean", rolloutPercentage: 1 }).expect(201);
  const patched = await request(http).patch(`/feature-flags/flags/${flag.body.data.id}`).set("Authorization", admin).send({ rolloutPercentage: 99.5 }).expect(400);
  t.is(patched.body.errors[0].source.pointer, "/rolloutPercentage");
});

test("flag and variant keys are at most 100 characters: a longer one is a 400 naming the field, nothing written", async (t) => {
  const { http, admin, create } = await flagAdmin(t, "flag-key-length-test");
  const long = `k${process.pid}`.padEnd(101, "x");

  const tooLong = await create({ key: long, type: "boolean" }).expect(400);
  t.is(tooLong.body.errors[0].source.pointer, "/key");
  t.regex(tooLong.body.errors[0].detail, /100/);
  const variant = await create({ key: `v${process.pid}`, type: "variant", variants: [{ key: "x".repeat(101), weight: 100 }] }).expect(400);
  t.is(variant.body.errors[0].source.pointer, "/variants/0/key");
  t.is(await featureFlagModel().countDocuments({ key: { $in: [long, `v${process.pid}`] } }), 0);

  const flag = await create({ key: long.slice(0, 100), type: "variant", variants: [{ key: "y".repeat(100), weight: 100 }] }).expect(201);
  const patched = await request(http).patch(`/feature-flags/flags/${flag.body.data.id}`).set("Authorization", admin).send({ key: "z".repeat(100_000) }).expect(400);
  t.is(patched.body.errors[0].source.pointer, "/key");
});

test("a flag's rules, variants and rule values are bounded: past a limit the write is a 400 naming the field, nothing written", async (t) => {
  const { http, admin, create } = await flagAdmin(t, "flag-limits-test", { type: "boolean" });
  const key = (name: string) => `${name}-${process.pid}`;
  const rule = (value: unknown, operator = "in") => ({ field: "email", operator, value, enabled: true });

  const refusals: Array<[string, Record<string, unknown>, string]> = [
    ["rules", { rules: Array.from({ length: 101 }, () => rule("a@example.com", "eq")) }, "/rules"],
    ["variants", { type: "variant", variants: Array.from({ length: 101 }, (_, index) => ({ key: `v${index}`, weight: index === 0 ? 100 : 0 })) }, "/variants"],
    ["values", { rules: [rule(Array.from({ length: 1001 }, (_, index) => `user-${index}@example.com`))] }, "/rules/0/value"],
    ["text", { rules: [rule("x".repeat(1001), "eq")] }, "/rules/0/value"],
    ["nested", { rules: [rule([["a"]])] }, "/rules/0/value"],
    ["field", { rules: [{ ...rule("a", "eq"), field: "f".repeat(201) }] }, "/rules/0/field"],
    ["name", { name: "n".repeat(201) }, "/name"],
  ];
  for (const [name, body, pointer] of refusals) {
    const refused = await create({ key: key(name), ...body }).expect(400);
    t.true(refused.body.errors.some((error: { source?: { pointer?: string } }) => error.source?.pointer === pointer), `${name}: ${JSON.stringify(refused.body.errors)}`);
  }
  t.is(await featureFlagModel().countDocuments({ key: { $in: refusals.map(([name]) => key(name)) } }), 0);

  // At the limits: accepted.
  await create({ key: key("max-rules"), rules: Array.from({ length: 100 }, () => rule("a@example.com", "eq")) }).expect(201);
  const list = await create({ key: key("max-values"), rules: [rule(Array.from({ length: 1000 }, (_, index) => `user-${index}@example.com`))] }).expect(201);
  const patched = await request(http).patch(`/feature-flags/flags/${list.body.data.id}`).set("Authorization", admin).send({ rules: [rule("y".repeat(1001), "eq")] }).expect(400);
  t.is(patched.body.errors[0].source.pointer, "/rules/0/value");
});
