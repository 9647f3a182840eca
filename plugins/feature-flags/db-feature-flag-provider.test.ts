import test from "ava";
import { ErrorCode, OpenFeature, ProviderEvents } from "@openfeature/server-sdk";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { DbFeatureFlagProvider, type FlagSource } from "./db-feature-flag-provider.js";
import { compileFlag, type CompiledFlag } from "./evaluate-flag.js";
import { flagBucket } from "./flag-bucket.js";
import { featureFlagsPlugin } from "./index.js";

test.after.always(() => stopTestDatabase());

function sourceOf(...flags: CompiledFlag[]): FlagSource {
  const byKey = new Map(flags.map((flag) => [flag.key, flag]));
  return { findFlag: async (key) => byKey.get(key) ?? null };
}

const provider = new DbFeatureFlagProvider(
  sourceOf(
    compileFlag({ key: "beta", type: "boolean", enabled: true, rolloutPercentage: 0, rules: [{ field: "plan", operator: "eq", value: "pro", enabled: true }] }),
    compileFlag({ key: "split", type: "boolean", enabled: true, rolloutPercentage: 50 }),
    compileFlag({ key: "off", type: "boolean", enabled: false }),
    compileFlag({ key: "theme", type: "variant", enabled: true, variants: [{ key: "light", weight: 100 }, { key: "dark", weight: 0 }] }),
    compileFlag({ key: "gone", type: "variant", enabled: false, variants: [{ key: "a", weight: 100 }] }),
  ),
);

test("boolean flags resolve with TARGETING_MATCH, SPLIT and DISABLED reasons", async (t) => {
  t.deepEqual(await provider.resolveBooleanEvaluation("beta", false, { targetingKey: "u1", plan: "pro" }), {
    value: true,
    reason: "TARGETING_MATCH",
    variant: "on",
  });
  const split = await provider.resolveBooleanEvaluation("split", true, { targetingKey: "u1" });
  t.is(split.reason, "SPLIT");
  t.is(split.value, flagBucket("split", "u1") < 50);
  t.deepEqual(await provider.resolveBooleanEvaluation("off", true, { targetingKey: "u1" }), { value: false, reason: "DISABLED", variant: "off" });
});

test("string flags resolve variant keys; a disabled one yields the caller's default", async (t) => {
  t.deepEqual(await provider.resolveStringEvaluation("theme", "none", { targetingKey: "u1" }), { value: "light", reason: "SPLIT", variant: "light" });
  t.deepEqual(await provider.resolveStringEvaluation("gone", "fallback", { targetingKey: "u1" }), { value: "fallback", reason: "DISABLED", variant: undefined });
  t.deepEqual(await provider.resolveStringEvaluation("theme", "none", {}), { value: "light", reason: "DEFAULT", variant: "light" });
});

test("unknown flags, wrong types, numbers and objects answer with the caller's default", async (t) => {
  const missing = await provider.resolveBooleanEvaluation("nope", true, {});
  t.is(missing.value, true);
  t.is(missing.errorCode, ErrorCode.FLAG_NOT_FOUND);
  t.is((await provider.resolveStringEvaluation("beta", "d", {})).errorCode, ErrorCode.TYPE_MISMATCH);
  const number = await provider.resolveNumberEvaluation("beta", 7);
  t.is(number.value, 7);
  t.is(number.errorCode, ErrorCode.FLAG_NOT_FOUND);
  const object = await provider.resolveObjectEvaluation("beta", { a: 1 });
  t.deepEqual(object.value, { a: 1 });
  t.is(object.errorCode, ErrorCode.FLAG_NOT_FOUND);
});

test("through the OpenFeature API under a domain, with configuration-changed events", async (t) => {
  await OpenFeature.setProviderAndWait("provider-test", provider);
  t.teardown(() => OpenFeature.clearProviders());
  const client = OpenFeature.getClient("provider-test");
  t.true(await client.getBooleanValue("beta", false, { targetingKey: "u9", plan: "pro" }));
  const details = await client.getBooleanDetails("nope", false);
  t.is(details.errorCode, ErrorCode.FLAG_NOT_FOUND);

  const changed = new Promise<string[] | undefined>((resolve) =>
    client.addHandler(ProviderEvents.ConfigurationChanged, (event) => resolve(event?.flagsChanged)),
  );
  provider.emitConfigurationChanged(["beta"]);
  t.deepEqual(await changed, ["beta"]);
});

// Serial: another test here clears every OpenFeature provider when it ends.
test.serial("the context's targetingKey decides the bucket, even beside a user's id (a flag created over HTTP)", async (t) => {
  const tokens = new TokenMap();
  const domain = "provider-targeting-key-test";
  const app = (await createTestApp()).register(tokens.plugin()).register(featureFlagsPlugin({ openFeatureDomain: domain }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const key = `per-organisation-${process.pid}`;
  await request(http)
    .post("/feature-flags/flags")
    .set("Authorization", tokens.user("provider-admin", { admin: true }).auth)
    .send({ key, name: "Per organisation", type: "boolean", enabled: true, rolloutPercentage: 50 })
    .expect(201);
  // An organisation in the rollout and a member of it who, bucketed alone, would be out.
  const organisation = Array.from({ length: 100 }, (_, index) => `org-${index}`).find((id) => flagBucket(key, id) < 50)!;
  const member = Array.from({ length: 100 }, (_, index) => `user-${index}`).find((id) => flagBucket(key, id) >= 50)!;
  const client = OpenFeature.getClient(domain);
  let details = await client.getBooleanDetails(key, false, { targetingKey: organisation, id: member, plan: "pro" });
  for (let attempt = 0; attempt < 500 && details.errorCode === ErrorCode.FLAG_NOT_FOUND; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    details = await client.getBooleanDetails(key, false, { targetingKey: organisation, id: member, plan: "pro" });
  }
  t.deepEqual([details.value, details.reason], [true, "SPLIT"]);
  // Without a targetingKey the context's id still buckets, as before.
  t.false(await client.getBooleanValue(key, true, { id: member }));
});
