import test from "ava";
import { ajvFor } from "./ajv-instances.js";
import { nullValueIssues } from "./null-values.js";

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
