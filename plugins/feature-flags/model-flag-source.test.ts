import { OpenFeature } from "@openfeature/server-sdk";
import test from "ava";
import request from "supertest";
import { HTTP_ROUTER } from "../../contracts/http.js";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import type { SvcPlugin } from "../../kernel/plugin.js";
import { DbFeatureFlagProvider, featureFlagModel, flagBucket, modelFlagSource } from "./index.js";

// The standalone source, used as an app without the feature-flags plugin would: its own route
// evaluates through OpenFeature, flags written with the model (a seed script, another service).

test.after.always(async () => {
  await OpenFeature.clearProviders();
  await stopTestDatabase();
});

const domain = "model-flag-source-test";
const provider = new DbFeatureFlagProvider(modelFlagSource(featureFlagModel(), { segments: { staff: (user) => user.staff === true } }));

/** GET /checkout?user=<id>&flag=<key>: the flag for that user, as the app's own code reads it. */
const checkoutRoutes: SvcPlugin = {
  name: "checkout-routes",
  register(ctx) {
    const router = ctx.resolve(HTTP_ROUTER);
    router.get("/checkout", async (req, res) => {
      const { user, flag, staff } = req.query as Record<string, string>;
      const details = await OpenFeature.getClient(domain).getBooleanDetails(flag, false, { targetingKey: user, staff: staff === "yes" });
      res.json({ data: { on: details.value, reason: details.reason, errorCode: details.errorCode ?? null } });
    });
    // Straight to the provider, where a failure is the route's own.
    router.get("/checkout/direct", async (req, res) => {
      const { user, flag } = req.query as Record<string, string>;
      const details = await provider.resolveBooleanEvaluation(flag, false, { targetingKey: user });
      res.json({ data: { on: details.value } });
    });
  },
};

async function startedApp(t: import("ava").ExecutionContext) {
  const app = (await createTestApp()).register(checkoutRoutes);
  const http = await app.build();
  t.teardown(() => app.stop());
  await OpenFeature.setProviderAndWait(domain, provider);
  return http;
}

const key = (label: string) => `source-${label}-${process.pid}`;

test.serial("modelFlagSource: evaluation reads the stored flag at once, with rules, rollout and soft deletes", async (t) => {
  const http = await startedApp(t);
  const FeatureFlag = featureFlagModel();
  const flagKey = key("rollout");
  // A user inside the 50 % and one outside it, by the documented bucket.
  const users = Array.from({ length: 40 }, (_, index) => `user-${index}`);
  const inside = users.find((user) => flagBucket(flagKey, user) < 50)!;
  const outside = users.find((user) => flagBucket(flagKey, user) >= 50)!;
  const flag = await FeatureFlag.create({ key: flagKey, name: "Rollout", type: "boolean", enabled: true, rolloutPercentage: 50, rules: [{ segment: "staff", enabled: true }] });
  const checkout = async (query: Record<string, string>) => (await request(http).get("/checkout").query({ flag: flagKey, ...query }).expect(200)).body.data;

  t.deepEqual(await checkout({ user: inside }), { on: true, reason: "SPLIT", errorCode: null });
  t.deepEqual(await checkout({ user: outside }), { on: false, reason: "SPLIT", errorCode: null });
  t.deepEqual(await checkout({ user: outside, staff: "yes" }), { on: true, reason: "TARGETING_MATCH", errorCode: null });

  // No cache in between: the next evaluation after a write sees it.
  await FeatureFlag.updateOne({ _id: flag._id }, { enabled: false });
  t.deepEqual(await checkout({ user: inside }), { on: false, reason: "DISABLED", errorCode: null });
  await FeatureFlag.updateOne({ _id: flag._id }, { deleted: true });
  t.deepEqual(await checkout({ user: inside }), { on: false, reason: "ERROR", errorCode: "FLAG_NOT_FOUND" });
  t.deepEqual(await checkout({ user: inside, flag: key("never-created") }), { on: false, reason: "ERROR", errorCode: "FLAG_NOT_FOUND" });
});

test.serial("modelFlagSource: two live flags with one key are REST_SEVERAL_MATCHES, never one picked at random", async (t) => {
  const http = await startedApp(t);
  const FeatureFlag = featureFlagModel();
  const flagKey = key("twice");
  // The unique index keeps this from happening; data written without it (an import before the
  // index was built, a failed index build) still can.
  await FeatureFlag.collection.dropIndex("key_1");
  const stored = { name: "Twice", type: "boolean", archived: false, defaultVariant: "off", rolloutPercentage: 100, rules: [], variants: [], deleted: false };
  await FeatureFlag.collection.insertMany([
    { ...stored, key: flagKey, enabled: true },
    { ...stored, key: flagKey, enabled: false },
  ]);

  const direct = await request(http).get("/checkout/direct").query({ flag: flagKey, user: "u1" }).expect(500);
  t.is(direct.body.errors[0].code, "REST_SEVERAL_MATCHES");
  const client = await request(http).get("/checkout").query({ flag: flagKey, user: "u1" }).expect(200);
  // OpenFeature answers the caller's default and passes the code on.
  t.deepEqual(client.body.data, { on: false, reason: "ERROR", errorCode: "REST_SEVERAL_MATCHES" });
});
