import test from "ava";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderSchemaReport, validateModelSchema, type SchemaViolation } from "./validate-model-schema.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const OPTIONS = `{ strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } }`;
const rules = (violations: readonly SchemaViolation[], severity?: string) =>
  violations.filter((v) => !severity || v.severity === severity).map((v) => `${v.rule}${v.path ? `@${v.path}` : ""}`).sort();

// Good schemas: svc's own conventions, in the shapes people write them.
const GOOD: Record<string, string> = {
  "described fields, strict throw, virtuals, default plugins": `
import mongoose from "mongoose";
import { defaultPlugins } from "svc";
const bookSchema = new mongoose.Schema(
  {
    title: { type: String, required: true, trim: true, description: "The title" },
    pages: { type: Number, min: 1, description: "How many pages" },
    tags: { type: [String], description: "Labels" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, ref: "User", index: true, description: "Who owns it" },
    address: { city: { type: String, description: "City" }, zip: { type: String, description: "Postal code" } },
  },
  ${OPTIONS},
);
bookSchema.plugin(defaultPlugins);
export const Book = mongoose.model("Book", bookSchema);`,
  "named import, options in a constant, compound index leading with the owner": `
import { Schema, model } from "mongoose";
import { createdUpdatedPlugin } from "svc";
const options = ${OPTIONS} as const;
const title = { type: String, description: "Title" };
const noteSchema = new Schema({ title, userId: { type: Schema.Types.ObjectId, ref: "User", description: "Author" } }, options);
noteSchema.index({ userId: 1, created: -1 });
noteSchema.plugin(createdUpdatedPlugin);
export const Note = model("Note", noteSchema);`,
  "subdocument arrays with described fields": `
import { Schema } from "mongoose";
import { defaultPlugins } from "svc";
const orderSchema = new Schema({
  lines: { type: [{ sku: { type: String, description: "Stock unit" }, qty: { type: Number, description: "Quantity" } }], description: "Order lines" },
}, ${OPTIONS});
orderSchema.plugin(defaultPlugins);`,
};

for (const [name, source] of Object.entries(GOOD)) {
  test(`good schema: ${name} — no errors, no warnings`, (t) => {
    const report = validateModelSchema(source);
    t.is(report.schemas, 1);
    t.deepEqual(rules(report.violations, "error"), []);
    t.deepEqual(rules(report.violations, "warning"), []);
    t.true(renderSchemaReport(report).includes('"valid": true'));
  });
}

test("the demo's Todo model passes (strict, described, owner indexed)", async (t) => {
  const report = validateModelSchema(await readFile(path.join(root, "examples/demo/todo.ts"), "utf8"));
  t.is(report.schemas, 1);
  t.deepEqual(rules(report.violations, "error"), []);
  t.deepEqual(rules(report.violations, "warning"), []);
});

// Bad schemas: each row is a source and the exact findings of each severity it must produce.
const BAD: Array<{ name: string; source: string; error?: string[]; warning?: string[]; info?: string[] }> = [
  {
    name: "fields without descriptions (object, shorthand, array, comment is not a description)",
    source: `const s = new Schema({ a: { type: String /* description: "x" */ }, b: String, c: [String], d: { type: Number, description: "" } }, ${OPTIONS}); s.plugin(defaultPlugins);`,
    error: ["missing-description@a", "missing-description@b", "missing-description@c", "missing-description@d"],
  },
  {
    name: "strict: false",
    source: `const s = new Schema({ a: { type: String, description: "A" } }, { strict: false, toJSON: { virtuals: true }, toObject: { virtuals: true } }); s.plugin(defaultPlugins);`,
    error: ["non-strict"],
  },
  {
    name: "no options at all",
    source: `const s = new Schema({ a: { type: String, description: "A" } }); s.plugin(defaultPlugins);`,
    warning: ["missing-options"],
  },
  {
    name: "virtuals missing, strict true, mongoose timestamps",
    source: `const s = new Schema({ a: { type: String, description: "A" } }, { strict: true, toJSON: { virtuals: false }, timestamps: true }); s.plugin(defaultPlugins);`,
    warning: ["missing-virtuals", "missing-virtuals"],
    info: ["mongoose-timestamps", "strict-not-throw"],
  },
  {
    name: "untyped Mixed in every spelling",
    source: `const s = new mongoose.Schema({ a: { type: Schema.Types.Mixed, description: "A" }, b: { type: mongoose.Schema.Types.Mixed, description: "B" }, c: { type: Object, description: "C" }, d: { type: {}, description: "D" }, e: { type: [], description: "E" } }, ${OPTIONS}); s.plugin(defaultPlugins);`,
    warning: ["untyped-mixed@a", "untyped-mixed@b", "untyped-mixed@c", "untyped-mixed@d", "untyped-mixed@e"],
  },
  {
    name: "owner references without an index; other references are info",
    source: `const s = new Schema({ ownerId: { type: Schema.Types.ObjectId, ref: "User", description: "Owner" }, createdBy: { type: Schema.Types.ObjectId, ref: "User", index: false, description: "Creator" }, bookId: { type: Schema.Types.ObjectId, ref: "Book", description: "Book" } }, ${OPTIONS}); s.plugin(defaultPlugins);`,
    warning: ["unindexed-owner-ref@createdBy", "unindexed-owner-ref@ownerId"],
    info: ["unindexed-ref@bookId"],
  },
  {
    name: "no timestamps plugin, required with a default",
    source: `const s = new Schema({ a: { type: String, required: true, default: "x", description: "A" } }, ${OPTIONS});`,
    info: ["no-timestamps-plugin", "required-with-default@a"],
  },
  {
    name: "nested paths and subdocument arrays are walked",
    source: `const s = new Schema({ address: { city: String }, lines: [{ sku: { type: String } }] }, ${OPTIONS}); s.plugin(defaultPlugins);`,
    error: ["missing-description@address.city", "missing-description@lines", "missing-description@lines[].sku"],
  },
  {
    name: "source that does not parse",
    source: `const s = new Schema({ a: { type: String, description: "A" }, }, ${OPTIONS}`,
    error: ["syntax"],
  },
  {
    name: "no schema (a string mentioning one does not count)",
    source: `const text = "new Schema({ a: String })"; export const x = 1;`,
    error: ["no-schema"],
  },
];

for (const row of BAD) {
  test(`bad schema: ${row.name}`, (t) => {
    const report = validateModelSchema(row.source);
    t.deepEqual(rules(report.violations, "error"), [...(row.error ?? [])].sort(), "errors");
    t.deepEqual(rules(report.violations, "warning"), [...(row.warning ?? [])].sort(), "warnings");
    if (row.info) t.deepEqual(rules(report.violations, "info"), [...row.info].sort(), "info");
    for (const violation of report.violations) {
      t.true(violation.line >= 1 && violation.column >= 1);
      t.true(violation.message.length > 10);
    }
    t.is(renderSchemaReport(report).includes('"valid": false'), (row.error ?? []).length > 0);
  });
}

test("positions point at the offending field", (t) => {
  const report = validateModelSchema(`const s = new Schema(\n  {\n    ok: { type: String, description: "Fine" },\n    bad: String,\n  },\n  ${OPTIONS},\n);`);
  const missing = report.violations.find((violation) => violation.rule === "missing-description")!;
  t.like(missing, { path: "bad", line: 4, column: 5, severity: "error" });
});

test("violations come errors first, then warnings, then info", (t) => {
  const report = validateModelSchema(`const s = new Schema({ a: String, b: { type: Object, description: "B" }, c: { type: String, ref: "X", description: "C" } }, { strict: true });`);
  const order = report.violations.map((violation) => violation.severity);
  t.deepEqual(order, [...order].sort((x, y) => ["error", "warning", "info"].indexOf(x) - ["error", "warning", "info"].indexOf(y)));
  t.true(order.includes("error") && order.includes("warning") && order.includes("info"));
});
