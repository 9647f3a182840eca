import test from "ava";
import type { AdminField } from "./api-types";
import { changedData, checkFormValue, limitError, limitsHint } from "./form-values";

// The generated form's checks of the schema's limits (the config's minLength/maxLength/min/max),
// plain functions run in Node; the e2e test shows them on a record page in Chromium.

const title: AdminField = { type: "string", required: true, maxLength: 200 };
const code: AdminField = { type: "string", required: false, minLength: 3, maxLength: 8 };
const count: AdminField = { type: "number", required: false, min: 0, max: 999 };
const tags: AdminField = { type: "array", required: false, items: { type: "string", required: false, maxLength: 5 } };

test("the hint says the limits: characters for text (and each line of a list), a range for numbers", (t) => {
  t.is(limitsHint(title, "text"), "Up to 200 characters.");
  t.is(limitsHint(title, "textarea"), "Up to 200 characters.");
  t.is(limitsHint(code, "text"), "3 to 8 characters.");
  t.is(limitsHint({ type: "string", required: false, minLength: 1 }, "text"), "At least 1 character.");
  t.is(limitsHint(tags, "lines"), "Each line up to 5 characters.");
  t.is(limitsHint(count, "number"), "From 0 to 999.");
  t.is(limitsHint({ type: "number", required: false, min: 1 }, "number"), "At least 1.");
  t.is(limitsHint({ type: "number", required: false, max: -1 }, "number"), "At most -1.");
  t.is(limitsHint({ type: "string", required: false }, "text"), "");
  // A choice among the schema's values needs no length.
  t.is(limitsHint({ ...code, enum: ["abc"] }, "select"), "");
});

test("values outside the limits are refused with why; values inside, empty optional ones and unlimited fields pass", (t) => {
  t.is(checkFormValue(title, "x".repeat(201), "text"), "Too long: up to 200 characters (this has 201)");
  t.is(checkFormValue(title, "x".repeat(200), "text"), undefined);
  t.is(checkFormValue(code, "AB", "text"), "Too short: at least 3 characters (this has 2)");
  t.is(checkFormValue(code, "", "text"), undefined);
  t.is(checkFormValue(count, "1000", "number"), "Too large: at most 999");
  t.is(checkFormValue(count, "-0.5", "number"), "Too small: at least 0");
  t.is(checkFormValue(count, "999", "number"), undefined);
  t.is(checkFormValue(count, "", "number"), undefined);
  t.is(checkFormValue(count, "twelve", "number"), "Enter a number");
  t.is(checkFormValue(tags, "red\nyellow\n", "lines"), "Line 2: too long: up to 5 characters (this has 6)");
  t.is(checkFormValue(tags, "red\nblue", "lines"), undefined);
  t.is(checkFormValue({ type: "string", required: false }, "x".repeat(10_000), "text"), undefined);
  t.is(limitError(count, null, "number"), undefined);
});

test("a value still as the record had it is not held to the limits: it is not sent, the server judges the record", (t) => {
  const stored = "x".repeat(230);
  t.is(checkFormValue(title, stored, "textarea", stored), undefined);
  t.is(checkFormValue(title, stored.slice(1), "textarea", stored), "Too long: up to 200 characters (this has 229)");
  // Required still applies: an emptied field is a change.
  t.is(checkFormValue(title, "", "textarea", stored), "Required");
  const model = { name: "Gadget", routePath: "/admin/gadgets", displayName: "Gadgets", listFields: [], defaultSort: "-created", fields: { title, count }, actions: {} } as never;
  t.deepEqual(changedData(model, "edit", { title: stored, count: "1" }, { title: stored, count: "2" }, { title: "textarea", count: "number" }), { count: 2 });
});
