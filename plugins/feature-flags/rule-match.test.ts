import test from "ava";
import { ObjectId } from "bson";
import request from "supertest";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import type { RuleOperator } from "./flag-types.js";
import { featureFlagsPlugin } from "./index.js";
import { compileFieldRule } from "./rule-match.js";

test.after.always(() => stopTestDatabase());

const oid = new ObjectId();
const user = {
  id: "u1",
  _id: oid,
  age: 30,
  name: "Ada",
  admin: false,
  tags: ["beta", "staff", 7],
  joined: new Date("2024-03-01T00:00:00Z"),
  profile: { country: "NZ", address: { city: "Wellington" } },
};

const matches = (field: string, operator: RuleOperator, value: unknown) => compileFieldRule({ field, operator, value })(user);

test("eq / neq compare same-typed values", (t) => {
  t.true(matches("name", "eq", "Ada"));
  t.false(matches("name", "eq", "ada"));
  t.true(matches("age", "eq", 30));
  t.false(matches("age", "eq", "30"), "a string never equals a number");
  t.true(matches("admin", "eq", false));
  t.true(matches("name", "neq", "Bob"));
  t.false(matches("age", "neq", "31"), "type mismatch is no match, even for neq");
  t.false(matches("missing", "neq", "x"), "a missing field matches nothing");
  t.true(matches("_id", "eq", oid.toHexString()), "ObjectIds compare as hex strings");
});

test("dot paths reach nested fields; broken paths never match", (t) => {
  t.true(matches("profile.country", "eq", "NZ"));
  t.true(matches("profile.address.city", "eq", "Wellington"));
  t.false(matches("profile.address.city.name", "eq", "Wellington"));
  t.false(matches("name.first", "eq", "Ada"));
});

test("in / nin take arrays of candidates", (t) => {
  t.true(matches("profile.country", "in", ["AU", "NZ"]));
  t.false(matches("profile.country", "in", ["AU"]));
  t.false(matches("age", "in", ["30"]));
  t.true(matches("profile.country", "nin", ["AU"]));
  t.false(matches("profile.country", "nin", ["NZ"]));
  t.false(matches("profile.country", "in", "NZ"), "a non-array value never matches");
  t.false(matches("missing", "nin", ["x"]));
});

test("gt / lt compare numbers, strings and dates of the same type", (t) => {
  t.true(matches("age", "gt", 18));
  t.false(matches("age", "gt", 30));
  t.true(matches("age", "lt", 31));
  t.false(matches("age", "gt", "18"));
  t.true(matches("name", "lt", "Bob"));
  t.true(matches("joined", "gt", "2024-01-01T00:00:00Z"), "ISO strings compare as dates against dates");
  t.true(matches("joined", "lt", new Date("2025-01-01")));
  t.false(matches("joined", "gt", "not a date"));
  t.false(matches("admin", "gt", false), "booleans are not ordered");
});

test("contains: substrings of strings, members of arrays", (t) => {
  t.true(matches("name", "contains", "d"));
  t.false(matches("name", "contains", 1));
  t.true(matches("tags", "contains", "beta"));
  t.true(matches("tags", "contains", 7));
  t.false(matches("tags", "contains", "7"));
  t.false(matches("age", "contains", 3));
});

test("an unknown operator never matches", (t) => {
  t.false(compileFieldRule({ field: "name", operator: "regex" as RuleOperator, value: ".*" })(user));
});

test("only the user's own fields are read: inherited properties (constructor, __proto__, toString) never match", (t) => {
  for (const [field, operator, value] of [
    ["constructor.name", "eq", "Object"],
    ["constructor.name", "neq", "x"],
    ["constructor.name", "contains", "Obj"],
    ["__proto__.constructor.name", "eq", "Object"],
    ["toString.name", "eq", "toString"],
    ["hasOwnProperty.length", "gt", 0],
    ["name.length", "eq", 3],
    ["joined.getTime.name", "eq", "getTime"],
    ["tags.constructor.name", "eq", "Array"],
    ["profile.constructor.name", "in", ["Object"]],
    // Objects and values reached through a prototype: each of these matched every user.
    ["_id._bsontype", "eq", "ObjectId"],
    ["_id._bsontype", "neq", "x"],
    ["_id.id.length", "eq", 12],
    ["tags.__proto__.length", "eq", 0],
    ["__proto__.__proto__", "neq", "x"],
  ] as const) {
    t.false(matches(field, operator, value), field);
  }
  // Own fields named like prototype members are fields like any other.
  const owner = { id: "u2", constructor: { name: "Acme" }, toString: "text" };
  t.true(compileFieldRule({ field: "constructor.name", operator: "eq", value: "Acme" })(owner));
  t.true(compileFieldRule({ field: "toString", operator: "eq", value: "text" })(owner));
  // An array's own entries (and its length) are still reachable.
  t.true(matches("tags.0", "eq", "beta"));
  t.true(matches("tags.length", "eq", 3));
  // A user object without a prototype is read the same way.
  const bare = Object.assign(Object.create(null) as Record<string, unknown>, { plan: "pro" });
  t.true(compileFieldRule({ field: "plan", operator: "eq", value: "pro" })(bare));
});

test("only ISO dates compare as dates: a rule value like \"5\" or \"beta 2\" never matches a Date field (over HTTP)", async (t) => {
  const tokens = new TokenMap();
  const app = (await createTestApp()).register(tokens.plugin()).register(featureFlagsPlugin({ openFeatureDomain: "rule-match-test" }));
  const http = await app.build();
  t.teardown(() => app.stop());
  const admin = tokens.user("rule-admin", { admin: true }).auth;
  const trial = tokens.user("rule-trial", { trialEnds: new Date("2024-06-01T00:00:00Z") }).auth;
  // Date.parse reads each of these non-dates as a day in 2001, before the user's trialEnds.
  const values = ["5", "beta 2", "March 7", "2020-06-01", "2024-06-01T00:00", "2024-06-01T00:00:00.000Z", "2024-06-01T02:00:00+02:00"];
  const keys = values.map((_, index) => `rule-iso-${process.pid}-${index}`);
  for (const [index, value] of values.entries()) {
    const operator = index < 4 ? "gt" : "eq";
    await request(http)
      .post("/feature-flags/flags")
      .set("Authorization", admin)
      .send({ key: keys[index], name: value, type: "boolean", enabled: true, rolloutPercentage: 0, rules: [{ field: "trialEnds", operator, value, enabled: true }] })
      .expect(201);
  }
  let data: Record<string, { defaultVariant: string }> = {};
  for (let attempt = 0; attempt < 500 && !keys.every((key) => key in data); attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    data = (await request(http).get("/feature-flags/flagConfiguration").set("Authorization", trial).expect(200)).body.data;
  }
  t.deepEqual(
    Object.fromEntries(values.map((value, index) => [value, data[keys[index]!]?.defaultVariant])),
    // A date-time without an offset is UTC on every server.
    { "5": "off", "beta 2": "off", "March 7": "off", "2020-06-01": "on", "2024-06-01T00:00": "on", "2024-06-01T00:00:00.000Z": "on", "2024-06-01T02:00:00+02:00": "on" },
  );
});
