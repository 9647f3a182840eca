import test from "ava";
import mongoose from "mongoose";
import { stopTestDatabase } from "../../../hosts/testing.js";
import { as, buildRestApp, spec } from "../../../test/support/rest-hosts.js";
import { ajvFor } from "../../validation/index.js";
import { Permissions } from "../permissions.js";
import { defaultPlugins } from "../schema/default-plugins.js";
import { mongooseJsonSchema } from "./mongoose-json-schema.js";

test.after.always(() => stopTestDatabase());

const schema = new mongoose.Schema({
  title: { type: String, required: true, minlength: 2, maxlength: 50, description: "Title" },
  kind: { type: String, enum: ["a", "b"], default: "a", description: "Kind" },
  rank: { type: Number, min: 1, max: 9, description: "Rank" },
  code: { type: String, match: /^[A-Z]{3}$/, description: "Code" },
  ownerId: { type: mongoose.Schema.Types.ObjectId, ref: "User", description: "Owner" },
  tags: { type: [String], description: "Tags" },
  steps: { type: [{ text: { type: String, required: true, description: "Step" } }], description: "Steps" },
  address: { city: { type: String, description: "City" } },
  counts: { type: Map, of: Number, description: "Counts" },
  flag: { type: Boolean, readOnly: true, description: "Server flag" },
  hidden: { type: String, select: false, description: "Hidden" },
});

test("create: required fields without defaults are required; read-only and _id are left out; the object is closed", (t) => {
  const create = mongooseJsonSchema(schema, { mode: "create", readOnlyPaths: new Set(["ownerId"]) });
  t.deepEqual(create.required, ["title"]);
  t.is(create.additionalProperties, false);
  const properties = create.properties!;
  t.false("_id" in properties);
  t.false("ownerId" in properties);
  t.false("flag" in properties);
  t.deepEqual(properties.title, { type: "string", minLength: 2, maxLength: 50, description: "Title" });
  t.deepEqual(properties.kind, { type: ["string", "null"], enum: ["a", "b", null], description: "Kind", default: "a" });
  t.deepEqual(properties.rank, { type: ["number", "null"], minimum: 1, maximum: 9, description: "Rank" });
  // Optional: mongoose's match lets "" through, so the pattern does too.
  t.is((properties.code as { pattern: string }).pattern, "^$|^[A-Z]{3}$");
  t.deepEqual((properties.address as { properties: object }).properties, { city: { type: ["string", "null"], description: "City" } });
});

test("update: no top-level field required, but a value sent whole (an array's items) keeps its required fields", (t) => {
  const update = mongooseJsonSchema(schema, { mode: "update" });
  t.is(update.required, undefined);
  t.is((update.properties!.title as { type: unknown }).type, "string");
  // A PATCH of `steps` replaces the array, so each item it sends must be complete.
  t.deepEqual((update.properties!.steps as { items: { required?: string[] } }).items.required, ["text"]);
  const validate = ajvFor({ coerceTypes: false, removeAdditional: false }).compile(update);
  t.false(validate({ steps: [{}] }));
  t.true(validate({ steps: [{ text: "one" }] }));
  t.true(validate({ rank: 3 }));
});

test("response: ids, readOnly marks and refs; select: false left out", (t) => {
  const response = mongooseJsonSchema(schema, { mode: "response", readOnlyPaths: new Set(["ownerId"]) });
  const properties = response.properties!;
  t.true(response.required!.includes("_id"));
  t.true(response.required!.includes("id"));
  t.false("hidden" in properties);
  t.is((properties.flag as { readOnly?: boolean }).readOnly, true);
  t.is((properties.ownerId as Record<string, unknown>)["x-ref"], "User");
  t.is((properties.ownerId as { readOnly?: boolean }).readOnly, true);
});

test("the derived create schema validates bodies with ajv", (t) => {
  const validate = ajvFor({ coerceTypes: true, removeAdditional: false }).compile(mongooseJsonSchema(schema, { mode: "create" }));
  t.true(validate({ title: "ok", rank: "3", tags: ["x"], steps: [{ text: "s" }], counts: { a: 1 }, address: { city: "Paris" } }));
  t.false(validate({ title: "x" }));
  t.false(validate({ title: "ok", kind: "c" }));
  t.false(validate({ title: "ok", code: "abc" }));
  t.false(validate({ title: "ok", steps: [{}] }));
  t.false(validate({ title: "ok", address: { zip: "1" } }));
  t.false(validate({ title: "ok", counts: { a: "many" } }));
  t.false(validate({ title: "ok", unknown: 1 }));
});

test("pattern and enum mongoose checks after trim/lowercase are not enforced on the raw input", (t) => {
  const rewriting = new mongoose.Schema({
    key: { type: String, trim: true, match: /^[a-z]+$/, description: "Key" },
    level: { type: String, lowercase: true, enum: ["low", "high"], description: "Level" },
  });
  const validate = ajvFor({ coerceTypes: false, removeAdditional: false }).compile(mongooseJsonSchema(rewriting, { mode: "create" }));
  t.true(validate({ key: "  abc  ", level: "HIGH" }), "mongoose turns these into valid values");
  t.false(validate({ key: 42 }), "the type is still checked");
});

test("lengths of trimmed and case-changed strings are in the schema, so ajv checks them first", (t) => {
  const rewriting = new mongoose.Schema({
    title: { type: String, trim: true, minlength: 2, maxlength: 5, description: "Title" },
    code: { type: String, uppercase: true, maxlength: 3, description: "Code" },
  });
  const create = mongooseJsonSchema(rewriting, { mode: "create" });
  t.like(create.properties!.title, { minLength: 2, maxLength: 5 });
  t.like(create.properties!.code, { maxLength: 3 });
  const validate = ajvFor({ coerceTypes: false, removeAdditional: false }).compile(create);
  t.true(validate({ title: " abc ", code: "abc" }));
  t.false(validate({ title: "abcdef" }));
  t.false(validate({ code: "abcd" }));
});

test("arrays take null only where the model can: never on create, as a top-level PATCH value (back to the default), with default: null, and in responses", (t) => {
  const lists = new mongoose.Schema({
    tags: { type: [String], description: "Tags" },
    steps: { type: [new mongoose.Schema({ marks: { type: [Number], description: "Marks" } }, { _id: false })], default: [], description: "Steps" },
    maybe: { type: [String], default: null, description: "Null until set" },
    note: { type: String, description: "A scalar stays nullable" },
  });
  const typeOf = (schema: object | undefined) => (schema as { type?: unknown } | undefined)?.type;
  const create = mongooseJsonSchema(lists, { mode: "create" }).properties!;
  t.is(typeOf(create.tags), "array");
  t.is(typeOf(create.steps), "array");
  t.deepEqual(typeOf(create.maybe), ["array", "null"]);
  t.deepEqual(typeOf(create.note), ["string", "null"]);

  const update = mongooseJsonSchema(lists, { mode: "update" }).properties!;
  t.deepEqual(typeOf(update.tags), ["array", "null"]);
  t.deepEqual(typeOf(update.steps), ["array", "null"]);
  const nested = (update.steps as { items: { properties: Record<string, object> } }).items.properties;
  t.is(typeOf(nested.marks), "array", "below the top level a PATCH null would be stored");

  const response = mongooseJsonSchema(lists, { mode: "response" }).properties!;
  t.deepEqual(typeOf(response.tags), ["array", "null"]);

  const validate = ajvFor({ coerceTypes: true, removeAdditional: false }).compile(mongooseJsonSchema(lists, { mode: "create" }));
  for (const wrong of [null, "", 0, false, "x", 1]) t.false(validate({ tags: wrong }), JSON.stringify(wrong));
  t.true(validate({ tags: [], maybe: null }));
});

/** The paths a 400's `meta.validationErrors` names, sorted. */
function issuePaths(body: { errors: Array<{ meta: { validationErrors: string } }> }): string[] {
  return (JSON.parse(body.errors[0]!.meta.validationErrors) as Array<{ path: string }>).map((issue) => issue.path).sort();
}

test("match becomes pattern where it means the same: u regexes too, \"\" allowed where mongoose allows it, trimmed fields in responses only, flagged regexes left to mongoose", async (t) => {
  const patterned = new mongoose.Schema(
    {
      name: { type: String, required: true, match: /^[A-Za-z]+$/, description: "Required: \"\" is refused anyway" },
      code: { type: String, match: /^[A-Z]{3}$/, description: "Optional: mongoose lets \"\" through" },
      slug: { type: String, match: /^[a-z-]+$/u, description: "A u regex" },
      handle: { type: String, trim: true, match: [/^[a-z]+$/, "letters only"], description: "Checked after trimming" },
      shout: { type: String, match: /^[a-z]+$/i, description: "Case-insensitive: JSON Schema cannot say it" },
    },
    { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
  );
  patterned.plugin(defaultPlugins);
  const Patterned = mongoose.model("PatternedThing", patterned);
  const all = [Permissions.IsAny];
  const app = await buildRestApp("SvcApp", [spec("/things", Patterned, { permissions: { list: all, read: all, create: all, update: all, delete: all } })]);
  t.teardown(() => app.stop());
  const api = as(app.http);

  const openapi = (await api.get("/openapi.json").expect(200)).body as { components: { schemas: Record<string, { properties: Record<string, { pattern?: string }> }> } };
  const patterns = (name: string) => Object.fromEntries(Object.entries(openapi.components.schemas[name]!.properties).map(([field, schema]) => [field, schema.pattern]));
  t.like(patterns("PatternedThingCreate"), { name: "^[A-Za-z]+$", code: "^$|^[A-Z]{3}$", slug: "^$|^[a-z-]+$", handle: undefined, shout: undefined });
  t.like(patterns("PatternedThingUpdate"), { name: "^[A-Za-z]+$", code: "^$|^[A-Z]{3}$", handle: undefined });
  // What is stored went through the setters: the response documents the pattern it meets.
  t.like(patterns("PatternedThing"), { name: "^[A-Za-z]+$", code: "^$|^[A-Z]{3}$", handle: "^$|^[a-z]+$", shout: undefined });

  // Everything mongoose accepts is accepted, and stored as mongoose makes it.
  const created = await api.post("/things", { name: "Ann", code: "", slug: "a-b", handle: "  abc  ", shout: "ABC" }).expect(201);
  t.like(created.body.data, { code: "", handle: "abc", shout: "ABC" });
  // What it refuses is refused by the request schema, every problem at once.
  const refused = await api.post("/things", { name: "", code: "abc", slug: "Not A Slug" }).expect(400);
  t.is(refused.body.errors[0].code, "VALIDATION_INVALID_BODY");
  t.deepEqual(issuePaths(refused.body), ["code", "name", "slug"]);
  // Left to mongoose: a trimmed value that still does not match, a flagged regex.
  const late = await api.post("/things", { name: "Bo", handle: " a1 ", shout: "1" }).expect(400);
  t.is(late.body.errors[0].code, "VALIDATION_FAILED");
  t.deepEqual(late.body.errors[0].meta.fields.map((field: { path: string }) => field.path).sort(), ["handle", "shout"]);
});
