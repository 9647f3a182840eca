import test from "ava";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { compileFlag } from "./evaluate-flag.js";
import { flagConfigurationFor, flagConfigurationJson, legacyEvaluationFor } from "./flag-configuration.js";
import { featureFlagsPlugin } from "./index.js";

test.after.always(() => stopTestDatabase());

const flags = [
  compileFlag({ key: "on-for-all", type: "boolean", enabled: true, rolloutPercentage: 100 }),
  compileFlag({ key: "off-for-all", type: "boolean", enabled: true, rolloutPercentage: 0 }),
  compileFlag({ key: "disabled", type: "boolean", enabled: false, rolloutPercentage: 100 }),
  compileFlag({ key: "archived", type: "variant", enabled: true, archived: true, variants: [{ key: "x", weight: 100 }] }),
  compileFlag({
    key: "theme",
    type: "variant",
    enabled: true,
    variants: [{ key: "light", weight: 0 }, { key: "dark", weight: 100 }],
    rules: [{ field: "admin", operator: "eq", value: true, variant: "light" }],
  }),
];

test("flag configuration has SPEC §2.4's shape, resolved for the user, without disabled or archived flags", (t) => {
  t.deepEqual(flagConfigurationFor(flags, { id: "u1", admin: false }), {
    "on-for-all": { variants: { on: true, off: false }, defaultVariant: "on", disabled: false },
    "off-for-all": { variants: { on: true, off: false }, defaultVariant: "off", disabled: false },
    theme: { variants: { light: "light", dark: "dark" }, defaultVariant: "dark", disabled: false },
  });
  t.is(flagConfigurationFor(flags, { id: "u2", admin: true }).theme!.defaultVariant, "light");
});

test("the legacy evaluation maps active flags to their values", (t) => {
  t.deepEqual(legacyEvaluationFor(flags, { id: "u1", admin: false }), {
    "on-for-all": true,
    "off-for-all": false,
    theme: "dark",
  });
});

test("the serialized configuration equals the object form for every user", (t) => {
  for (const user of [{ id: "u1", admin: false }, { id: "u2", admin: true }, { id: "u3" }, {}]) {
    t.deepEqual(JSON.parse(flagConfigurationJson(flags, user)), { data: flagConfigurationFor(flags, user) });
  }
  t.is(flagConfigurationJson([], { id: "x" }), '{"data":{}}');
});

test("every variant key is in the served configuration, even one named __proto__ or toString", async (t) => {
  const tokens = new TokenMap();
  const app = (await createTestApp()).register(tokens.plugin()).register(featureFlagsPlugin({ openFeatureDomain: "flag-configuration-test" }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const admin = tokens.user("configuration-admin", { admin: true }).auth;
  const user = tokens.user("configuration-user").auth;
  const key = `configuration-proto-${process.pid}`;
  await request(http)
    .post("/feature-flags/flags")
    .set("Authorization", admin)
    .send({ key, name: "Proto", type: "variant", enabled: true, variants: [{ key: "__proto__", weight: 100 }, { key: "toString", weight: 0 }] })
    .expect(201);
  let entry: { variants: Record<string, string>; defaultVariant: string } | undefined;
  for (let attempt = 0; attempt < 500 && !entry; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    entry = (await request(http).get("/feature-flags/flagConfiguration").set("Authorization", user).expect(200)).body.data[key];
  }
  // The resolved variant must be one of the listed ones, or an in-memory provider cannot resolve it.
  t.is(entry?.defaultVariant, "__proto__");
  t.deepEqual(Object.entries(entry?.variants ?? {}), [["__proto__", "__proto__"], ["toString", "toString"]]);
});
