import test from "ava";
import { ObjectId } from "bson";
import { compileFlag, flagUserId } from "./evaluate-flag.js";
import { flagBucket } from "./flag-bucket.js";
import type { FlagDefinition } from "./flag-types.js";

const user = { id: "u1", email: "ada@example.com", admin: false, profile: { plan: "pro", seats: 12 } };

/** An enabled variant flag with these variants and rules. */
const variantFlag = (key: string, variants: FlagDefinition["variants"], rules: FlagDefinition["rules"] = []) =>
  compileFlag({ key, type: "variant", enabled: true, variants, rules });

test("rule 1: a disabled boolean flag is false", (t) => {
  const flag = compileFlag({ key: "f", type: "boolean", enabled: false, rolloutPercentage: 100, rules: [{ field: "id", operator: "eq", value: "u1", enabled: true }] });
  t.deepEqual(flag.evaluate(user, "u1"), { value: false, reason: "DISABLED", variant: "off" });
  t.false(flag.active);
});

test("rule 2: an enabled boolean flag without matching rules follows the hash", (t) => {
  const bucket = flagBucket("f2", "u1");
  const below = compileFlag({ key: "f2", type: "boolean", enabled: true, rolloutPercentage: bucket });
  const above = compileFlag({ key: "f2", type: "boolean", enabled: true, rolloutPercentage: bucket + 1 });
  t.deepEqual(below.evaluate(user, "u1"), { value: false, reason: "SPLIT", variant: "off" });
  t.deepEqual(above.evaluate(user, "u1"), { value: true, reason: "SPLIT", variant: "on" });
  t.is(compileFlag({ key: "f2", type: "boolean", enabled: true, rolloutPercentage: 0 }).evaluate(user, "u1").value, false);
  t.is(compileFlag({ key: "f2", type: "boolean", enabled: true, rolloutPercentage: 100 }).evaluate(user, "u1").value, true);
});

test("rule 3: a matching rule decides a boolean flag, whatever the rollout", (t) => {
  const flag = compileFlag({
    key: "f3",
    type: "boolean",
    enabled: true,
    rolloutPercentage: 100,
    rules: [{ field: "profile.plan", operator: "eq", value: "pro", enabled: false }],
  });
  t.deepEqual(flag.evaluate(user, "u1"), { value: false, reason: "TARGETING_MATCH", variant: "off", ruleIndex: 0 });
});

test("rule 4: a disabled variant flag is null", (t) => {
  const flag = compileFlag({ key: "v", type: "variant", enabled: false, variants: [{ key: "a", weight: 100 }] });
  t.deepEqual(flag.evaluate(user, "u1"), { value: null, reason: "DISABLED" });
});

test("rule 5: an enabled variant flag maps the bucket by cumulative weight", (t) => {
  const flag = variantFlag("colors", [{ key: "red", weight: 20 }, { key: "green", weight: 30 }, { key: "blue", weight: 50 }]);
  for (let i = 0; i < 300; i++) {
    const id = `user-${i}`;
    const bucket = flagBucket("colors", id);
    const expected = bucket < 20 ? "red" : bucket < 50 ? "green" : "blue";
    t.deepEqual(flag.evaluate({ id }, id), { value: expected, reason: "SPLIT", variant: expected });
  }
});

test("rule 6: a matching rule decides a variant flag", (t) => {
  const flag = variantFlag("colors", [{ key: "red", weight: 100 }, { key: "blue", weight: 0 }], [
    { field: "email", operator: "contains", value: "@example.com", variant: "blue" },
  ]);
  t.deepEqual(flag.evaluate(user, "u1"), { value: "blue", reason: "TARGETING_MATCH", variant: "blue", ruleIndex: 0 });
});

test("rule 7: archived flags are inactive and evaluate like disabled ones", (t) => {
  const flag = compileFlag({ key: "old", type: "boolean", enabled: true, archived: true, rolloutPercentage: 100 });
  t.false(flag.active);
  t.is(flag.evaluate(user, "u1").reason, "DISABLED");
});

test("the first matching rule wins", (t) => {
  const flag = variantFlag("order", [{ key: "a", weight: 50 }, { key: "b", weight: 50 }], [
    { field: "admin", operator: "eq", value: true, variant: "a" },
    { field: "profile.seats", operator: "gt", value: 10, variant: "b" },
    { field: "profile.plan", operator: "eq", value: "pro", variant: "a" },
  ]);
  t.deepEqual(flag.evaluate(user, "u1"), { value: "b", reason: "TARGETING_MATCH", variant: "b", ruleIndex: 1 });
});

test("segments: registered ones decide; unknown or throwing ones never match and are reported", (t) => {
  const problems: string[] = [];
  const flag = compileFlag(
    {
      key: "seg",
      type: "boolean",
      enabled: true,
      rolloutPercentage: 0,
      rules: [
        { segment: "missing", enabled: true },
        { segment: "broken", enabled: true },
        { segment: "pros", enabled: true },
      ],
    },
    {
      broken: () => {
        throw new Error("boom");
      },
      pros: (u) => (u.profile as { plan?: string } | undefined)?.plan === "pro",
    },
    (flagKey, segment) => void problems.push(`${flagKey}/${segment}`),
  );
  t.deepEqual(flag.evaluate(user, "u1"), { value: true, reason: "TARGETING_MATCH", variant: "on", ruleIndex: 2 });
  t.deepEqual(flag.evaluate({ id: "u2", profile: { plan: "free" } }, "u2"), { value: false, reason: "SPLIT", variant: "off" });
  t.true(problems.includes("seg/missing"));
  t.true(problems.includes("seg/broken"));
});

test("defaults: boolean flags default to off, variant flags to their first variant; no user id → DEFAULT", (t) => {
  const bool = compileFlag({ key: "b", type: "boolean", enabled: true });
  t.is(bool.defaultVariant, "off");
  t.deepEqual(bool.evaluate({}, undefined), { value: false, reason: "DEFAULT", variant: "off" });
  const variant = variantFlag("v", [{ key: "x", weight: 50 }, { key: "y", weight: 50 }]);
  t.is(variant.defaultVariant, "x");
  t.deepEqual(variant.evaluate({}, undefined), { value: "x", reason: "DEFAULT", variant: "x" });
  t.deepEqual(variant.variantKeys, ["x", "y"]);
});

test("flagUserId reads id, _id (ObjectId or string) and targetingKey", (t) => {
  const oid = new ObjectId();
  t.is(flagUserId({ id: "a" }), "a");
  t.is(flagUserId({ _id: oid }), oid.toHexString());
  t.is(flagUserId({ _id: "plain" }), "plain");
  t.is(flagUserId({ targetingKey: "tk" }), "tk");
  t.is(flagUserId({}), undefined);
  t.is(flagUserId(undefined), undefined);
});
