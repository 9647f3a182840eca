import test from "ava";
import mongoose from "mongoose";
import { adminFields } from "./field-metadata.js";

test("fields: types, required, description, enum, default, ref, arrays and nested objects; hidden fields left out", (t) => {
  const schema = new mongoose.Schema({
    name: { type: String, required: true, description: "Name" },
    count: { type: Number, default: 3, description: "How many" },
    kind: { type: String, enum: ["a", "b"], description: "Kind" },
    when: { type: Date, description: "When" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, ref: "User", description: "Owner" },
    tags: { type: [String], description: "Tags" },
    lines: [new mongoose.Schema({ sku: { type: String, required: true, description: "SKU" } })],
    address: { city: { type: String, description: "City" } },
    secret: { type: String, select: false, description: "Hidden" },
  });
  const fields = adminFields(schema);
  t.deepEqual(fields.name, { type: "string", required: true, description: "Name" });
  t.deepEqual(fields.count, { type: "number", required: false, description: "How many", default: 3 });
  t.deepEqual(fields.kind, { type: "string", required: false, description: "Kind", enum: ["a", "b"] });
  t.is(fields.when!.type, "date");
  t.deepEqual(fields.ownerId, { type: "objectid", required: false, description: "Owner", ref: "User" });
  t.deepEqual(fields.tags, { type: "array", required: false, description: "Tags", items: { type: "string", required: false } });
  t.deepEqual(fields.lines!.items?.fields?.sku, { type: "string", required: true, description: "SKU" });
  t.deepEqual(fields.address, { type: "object", required: false, fields: { city: { type: "string", required: false, description: "City" } } });
  t.is(fields._id!.type, "objectid");
  t.false("secret" in fields);
  t.false("__v" in fields);
});

test("fields: length and range limits a form can enforce before saving; read-only paths marked", (t) => {
  const schema = new mongoose.Schema({
    title: { type: String, minlength: 2, maxlength: [200, "too long"], description: "Title" },
    rating: { type: Number, min: 1, max: 5, description: "Stars" },
    due: { type: Date, min: new Date("2020-01-01"), description: "Due" },
    code: { type: String, maxlength: () => 3, description: "Computed bound: not shown" },
  });
  const fields = adminFields(schema, new Set(["_id"]));
  t.deepEqual(fields.title, { type: "string", required: false, description: "Title", minLength: 2, maxLength: 200 });
  t.deepEqual(fields.rating, { type: "number", required: false, description: "Stars", min: 1, max: 5 });
  t.deepEqual(fields.due, { type: "date", required: false, description: "Due" });
  t.deepEqual(fields.code, { type: "string", required: false, description: "Computed bound: not shown" });
  t.deepEqual(fields._id, { type: "objectid", required: false, readOnly: true });
});
