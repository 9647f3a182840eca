import test from "ava";
import mongoose from "mongoose";
import { bsonTypeName, inferFieldTypes } from "./infer-field-types.js";

const { Int32, Double, Long, Decimal128, ObjectId, Binary } = mongoose.mongo.BSON;

test("names BSON types as MongoDB does, keeping numeric types apart", (t) => {
  t.is(bsonTypeName(new Int32(1)), "int");
  t.is(bsonTypeName(new Double(1)), "double");
  t.is(bsonTypeName(Long.fromNumber(1)), "long");
  t.is(bsonTypeName(Decimal128.fromString("1.5")), "decimal");
  t.is(bsonTypeName(new ObjectId()), "objectId");
  t.is(bsonTypeName(new Binary(Buffer.from("x"))), "binData");
  t.is(bsonTypeName(new Date()), "date");
  t.is(bsonTypeName(null), "null");
  t.is(bsonTypeName(true), "bool");
  t.is(bsonTypeName("x"), "string");
  t.is(bsonTypeName({ a: 1 }), "object");
  t.is(bsonTypeName([1]), "array");
});

test("infers nested paths, array elements, mixed types by frequency and presence", (t) => {
  const fields = inferFieldTypes([
    { _id: new ObjectId(), price: new Int32(3), address: { city: "Oslo" }, tags: ["a", "b"] },
    { _id: new ObjectId(), price: new Double(2.5), address: { city: "Rome", zip: "00100" } },
    { _id: new ObjectId(), price: new Double(4.5), tags: [] },
  ]);
  const byPath = Object.fromEntries(fields.map((field) => [field.path, field]));
  t.deepEqual(byPath.price, { path: "price", types: ["double", "int"], present: 3 });
  t.deepEqual(byPath["address.city"], { path: "address.city", types: ["string"], present: 2 });
  t.deepEqual(byPath["address.zip"], { path: "address.zip", types: ["string"], present: 1 });
  t.deepEqual(byPath["tags.[]"], { path: "tags.[]", types: ["string"], present: 1 });
  t.deepEqual(byPath.tags?.present, 2);
});
