import test from "ava";
import { compileFlag } from "./evaluate-flag.js";
import { flagConfigurationFor, flagConfigurationJson, legacyEvaluationFor } from "./flag-configuration.js";

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
