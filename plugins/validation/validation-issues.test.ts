import test from "ava";
import { ajvFor } from "./ajv-instances.js";
import { ValidationErrors } from "./errors.js";
import { fromAjvErrors, MAX_REPORTED_ISSUES, requestValidationError, type ValidationIssue } from "./validation-issues.js";

function issuesFor(schema: object, value: unknown): ValidationIssue[] {
  const validate = ajvFor({ coerceTypes: false, removeAdditional: false }).compile(schema);
  validate(value);
  return fromAjvErrors(validate.errors ?? []);
}

test("type messages name each allowed type in words", (t) => {
  const schema = { type: "object", properties: { done: { type: ["boolean", "null"] }, size: { type: "integer" }, tags: { type: "array" } } };
  const issues = issuesFor(schema, { done: "yes", size: "big", tags: 1 });
  t.deepEqual(issues.map(({ path, message }) => ({ path, message })), [
    { path: "done", message: "must be a boolean or null" },
    { path: "size", message: "must be an integer" },
    { path: "tags", message: "must be an array" },
  ]);
});

test("a failed anyOf is one issue saying what each branch wanted (DateOnly's day or date-time)", (t) => {
  const day = { type: "string", anyOf: [{ format: "date" }, { format: "date-time" }] };
  const issues = issuesFor({ type: "object", properties: { dueOn: day } }, { dueOn: "next tuesday" });
  t.deepEqual(issues, [{ path: "dueOn", message: "must be a date (YYYY-MM-DD) or a date-time (ISO 8601)", keyword: "anyOf" }]);
  t.deepEqual(issuesFor({ type: "object", properties: { dueOn: day } }, { dueOn: "2024-05-01" }), []);
});

test("many failed anyOfs (one per array item) are one issue each", (t) => {
  const day = { type: "string", anyOf: [{ format: "date" }, { format: "date-time" }] };
  const days = Array.from({ length: 3000 }, () => "soon");
  const issues = issuesFor({ type: "object", properties: { days: { type: "array", items: day } } }, { days });
  t.is(issues.length, days.length);
  t.deepEqual(issues[2999], { path: "days.2999", message: "must be a date (YYYY-MM-DD) or a date-time (ISO 8601)", keyword: "anyOf" });
});

test("branches that are not plain types or formats get a generic anyOf message, still once", (t) => {
  const schema = { anyOf: [{ type: "object", required: ["a"] }, { type: "string", minLength: 3 }] };
  const issues = issuesFor(schema, "x");
  t.is(issues.length, 1);
  t.is(issues[0]!.keyword, "anyOf");
});

test("an error response lists at most the first 20 issues and counts the rest", (t) => {
  const issues = Array.from({ length: MAX_REPORTED_ISSUES + 7 }, (_, index) => ({ path: `field${index}`, message: "is not a field of this resource" }));
  const error = requestValidationError(issues, "body", ValidationErrors.UNKNOWN_FIELD);
  const listed = JSON.parse(error.meta!.validationErrors as string) as ValidationIssue[];
  t.is(listed.length, MAX_REPORTED_ISSUES);
  t.is(listed[0]!.path, "field0");
  t.is(error.meta!.moreErrors, 7);
  t.is(error.source!.pointer, "/field0");
  t.regex(error.detail!, /and 7 more$/);

  const few = requestValidationError(issues.slice(0, 3), "body");
  t.is(few.meta!.moreErrors, undefined);
});
