import test from "ava";
import { ajvFor } from "./ajv-instances.js";
import { coercedIntoNullIssues, nullableCandidates, nullValueIssues } from "./null-values.js";

const schema = {
  type: "object",
  properties: {
    title: { type: "string" },
    count: { type: "number" },
    note: { type: ["string", "null"] },
    steps: { type: "array", items: { type: "object", properties: { done: { type: "boolean" } } } },
    anything: {},
  },
};
const coercing = ajvFor({ coerceTypes: true, removeAdditional: false }).compile(schema);

test("nulls the schema does not allow are type errors, even though coercion would accept them", (t) => {
  const body = { title: null, count: null, note: null, steps: [{ done: null }], anything: null };
  const issues = nullValueIssues(coercing, body);
  t.deepEqual(issues.map((issue) => [issue.path, issue.keyword]), [
    ["title", "type"],
    ["count", "type"],
    ["steps.0.done", "type"],
  ]);
  t.deepEqual(body, { title: null, count: null, note: null, steps: [{ done: null }], anything: null }, "the body is only read");
});

test("bodies whose nulls are allowed, or without nulls, have no issues", (t) => {
  t.deepEqual(nullValueIssues(coercing, { note: null, anything: null }), []);
  t.deepEqual(nullValueIssues(coercing, { title: 5, count: "x" }), [], "other problems are the coercing pass's");
});

const nullableSchema = {
  type: "object",
  properties: {
    rules: { type: ["array", "null"], items: { type: "object" } },
    count: { type: ["number", "null"] },
    note: { type: ["string", "null"] },
    flag: { type: ["boolean", "null"] },
    steps: { type: "array", items: { type: "object", properties: { at: { type: ["integer", "null"] } } } },
  },
};
const coercingNullable = ajvFor({ coerceTypes: true, removeAdditional: false }).compile(nullableSchema);

test("coercion never turns \"\", 0 or false into null: each is a type error in the validator's words", (t) => {
  const body: Record<string, unknown> = { rules: 0, count: "", flag: "", steps: [{ at: "" }, { at: false }] };
  const candidates = nullableCandidates(body);
  t.true(coercingNullable(body), "ajv alone accepts them, as nulls");
  t.is(body.rules, null);
  const issues = coercedIntoNullIssues(coercingNullable, body, candidates);
  t.deepEqual(issues, [
    { path: "rules", message: "must be an array or null", keyword: "type" },
    { path: "count", message: "must be a number or null", keyword: "type" },
    { path: "flag", message: "must be a boolean or null", keyword: "type" },
    { path: "steps.0.at", message: "must be an integer or null", keyword: "type" },
  ]);
  t.is((body.steps as Array<{ at: unknown }>)[1]!.at, 0, "false → 0 is coercion to the field's own type, not to null");
});

test("values coercion turns into something other than null are left alone", (t) => {
  // "" stays a string, 0 becomes "0", false becomes 0 for an integer: none is an invented null.
  const body: Record<string, unknown> = { note: "", rules: [], count: 0, steps: [{ at: 0 }] };
  const candidates = nullableCandidates(body);
  t.true(coercingNullable(body));
  t.deepEqual(coercedIntoNullIssues(coercingNullable, body, candidates), []);
  t.deepEqual(nullableCandidates({ a: "x", b: [1, true], c: null }), [], "only \"\", 0 and false are candidates");
});
