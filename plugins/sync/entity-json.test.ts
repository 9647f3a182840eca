import test from "ava";
import { BSON, Binary, Decimal128, Long, ObjectId } from "mongodb";
import { EntityJsonWriter } from "./entity-json.js";
import { toEntity } from "./entity-shape.js";

/** What the snapshot sent before the writer: the decoded document's entity, stringified. */
const decodedWay = (doc: Record<string, unknown>) => JSON.stringify(toEntity(BSON.deserialize(BSON.serialize(doc))));

function written(docs: Record<string, unknown>[]): string[] {
  const writer = new EntityJsonWriter();
  const spans = docs.map((doc) => writer.append(BSON.serialize(doc)));
  return spans.map(({ start, end }) => writer.bytes().subarray(start, end).toString("utf8"));
}

test("common values are written byte for byte as the decoded entity's JSON", (t) => {
  const docs = [
    { _id: "t1", title: "Milk", done: false, rank: 3, score: 2.5, deleted: false, _syncSeq: 7, _syncStream: "todos|owner:u1", __v: 0 },
    { _id: "t2", title: 'quotes " and \\ backslash\nnewline\ttab', note: "é ü 日本 🎉", deleted: true, _syncSeq: 8 },
    { _id: "t3", when: new Date("2026-11-23T10:00:00.000Z"), owner: new ObjectId("65a1b2c3d4e5f60718293a4b"), none: null, nested: { a: 1, b: [1, "two", { c: true }], empty: {} }, list: [] },
    { _id: "t4", big: Long.fromNumber(2 ** 40), small: Long.fromNumber(-5), _syncSeq: Long.fromNumber(9), nan: Number.NaN, inf: Number.POSITIVE_INFINITY, negZero: -0 },
    { _id: "t5" },
  ];
  const texts = written(docs);
  docs.forEach((doc, index) => t.is(texts[index], decodedWay(doc)));
  t.deepEqual(JSON.parse(texts[0]!), { id: "t1", data: { id: "t1", title: "Milk", done: false, rank: 3, score: 2.5, deleted: false }, seq: 7, deleted: false });
});

test("documents with values it does not write itself are decoded the usual way, in place", (t) => {
  const docs = [
    { _id: "a", blob: new Binary(Buffer.from("bytes")), _syncSeq: 1 },
    { _id: "b", price: Decimal128.fromString("1.10"), _syncSeq: 2 },
    { _id: "c", huge: Long.fromString("9223372036854775807"), _syncSeq: 3 },
    { _id: "d", pattern: /ab+c/i, _syncSeq: 4 },
    { title: "id not first", _id: "e", _syncSeq: 5 },
    { _id: new ObjectId("65a1b2c3d4e5f60718293a4b"), _syncSeq: 6 },
    { _id: "g", title: "after the fallbacks", _syncSeq: 7 },
  ];
  const texts = written(docs);
  docs.forEach((doc, index) => t.deepEqual(JSON.parse(texts[index]!), JSON.parse(decodedWay(doc))));
  t.is(JSON.parse(texts[6]!).data.title, "after the fallbacks");
});

test("a page far larger than the first buffer grows it and keeps every entity intact", (t) => {
  const long = "x".repeat(10_000);
  const docs = Array.from({ length: 50 }, (_, index) => ({ _id: `p${index}`, body: long, index, _syncSeq: index + 1 }));
  const texts = written(docs);
  t.is(texts.length, 50);
  docs.forEach((doc, index) => t.is(texts[index], decodedWay(doc)));
});
