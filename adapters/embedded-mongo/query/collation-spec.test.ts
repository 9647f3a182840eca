import test from "ava";
import { MongoServerError } from "mongodb";
import type { CollationOptions, Document } from "mongodb";
import { ErrorCodes } from "../engine-error.js";
import { useFileEngine } from "../test-support/file-engine.js";

const shared = useFileEngine(test, "collation");

async function collectionOf(label: string, names: readonly string[]) {
  const c = shared.client.db(shared.freshDb(label)).collection<Document>("c");
  await c.insertMany(names.map((n) => ({ n })));
  return c;
}

async function names(cursor: { toArray(): Promise<Document[]> }): Promise<string[]> {
  return (await cursor.toArray()).map((d) => d["n"] as string).sort();
}

test("invalid collation documents are refused with mongod's codes, on reads and on createIndex", async (t) => {
  const c = await collectionOf("invalid", ["a"]);
  const cases: Array<[string, Document, number]> = [
    ["missing locale", { strength: 1 }, 40414],
    ["unknown field", { locale: "en", foo: 1 }, 40415],
    ["strength above 5", { locale: "en", strength: 6 }, ErrorCodes.BadValue],
    ["strength 0", { locale: "en", strength: 0 }, ErrorCodes.BadValue],
    ["strength of another type", { locale: "en", strength: "2" }, ErrorCodes.TypeMismatch],
    ["caseFirst outside upper/lower/off", { locale: "en", caseFirst: "sideways" }, ErrorCodes.BadValue],
    ["locale of another type", { locale: 5 }, ErrorCodes.TypeMismatch],
    ["unknown locale", { locale: "xx_bogus" }, ErrorCodes.BadValue],
  ];
  for (const [label, collation, code] of cases) {
    const read = await t.throwsAsync(c.find({}).collation(collation as CollationOptions).toArray(), { instanceOf: MongoServerError }, label);
    t.is(read?.code, code, label);
    const aggregate = await t.throwsAsync(c.aggregate([], { collation: collation as CollationOptions }).toArray(), { instanceOf: MongoServerError }, label);
    t.is(aggregate?.code, code, label);
  }
  const index = await t.throwsAsync(c.createIndex({ n: 1 }, { collation: { locale: "zz" } }), { instanceOf: MongoServerError });
  t.is(index?.code, ErrorCodes.BadValue);
  t.regex(index?.message ?? "", /Field 'locale' is invalid/);
  const db = shared.client.db(shared.freshDb("create"));
  const create = await t.throwsAsync(db.createCollection("d", { collation: { locale: "en", strength: 9 } }), { instanceOf: MongoServerError });
  t.is(create?.code, ErrorCodes.BadValue);
  t.deepEqual(await db.listCollections({ name: "d" }).toArray(), [], "nothing is created");
});

test("the manual's locales and options are accepted; strength 1 with caseLevel compares base letters and case", async (t) => {
  const c = await collectionOf("valid", ["a", "A", "á", "b"]);
  t.deepEqual(await names(c.find({ n: "a" }).collation({ locale: "fr_CA", strength: 1 })), ["A", "a", "á"]);
  t.deepEqual(await names(c.find({ n: "a" }).collation({ locale: "en", strength: 1, caseLevel: true })), ["a", "á"]);
  t.deepEqual(await names(c.find({ n: "a" }).collation({ locale: "en", strength: 2, caseFirst: "upper", numericOrdering: true })), ["A", "a"]);
  // maxVariable has no effect unless alternate is "shifted".
  t.deepEqual(await names(c.find({ n: "a" }).collation({ locale: "en_US", alternate: "non-ignorable", maxVariable: "space", backwards: false })), ["a"]);
});

test("{locale: \"simple\"} compares binary, overriding the collection's default collation", async (t) => {
  const db = shared.client.db(shared.freshDb("simple"));
  await db.createCollection("c", { collation: { locale: "en", strength: 2 } });
  const c = db.collection<Document>("c");
  await c.insertMany([{ n: "a" }, { n: "A" }]);
  t.deepEqual(await names(c.find({ n: "a" })), ["A", "a"], "the default collation");
  t.deepEqual(await names(c.find({ n: "a" }).collation({ locale: "simple" })), ["a"]);
  t.deepEqual(await c.countDocuments({ n: "a" }, { collation: { locale: "simple" } }), 1);
  t.deepEqual(await c.distinct("n", {}, { collation: { locale: "simple" } }), ["A", "a"]);
});

test("alternate: \"shifted\" ignores spaces and punctuation; options left out keep the locale's defaults", async (t) => {
  const c = await collectionOf("shifted", ["a-b", "ab", "a b", "AB"]);
  t.deepEqual(await names(c.find({ n: "ab" }).collation({ locale: "en", strength: 1, alternate: "shifted" })), ["AB", "a b", "a-b", "ab"]);
  t.deepEqual(await names(c.find({ n: "ab" }).collation({ locale: "en", strength: 1, alternate: "non-ignorable" })), ["AB", "ab"]);
  // Danish sorts upper case first unless caseFirst says otherwise (ICU's locale data, as on mongod).
  const cases = await collectionOf("danish", ["a", "A"]);
  const sorted = async (collation: CollationOptions) => (await cases.find({}, { projection: { _id: 0 } }).sort({ n: 1 }).collation(collation).toArray()).map((doc) => doc["n"]);
  t.deepEqual(await sorted({ locale: "da" }), ["A", "a"]);
  t.deepEqual(await sorted({ locale: "da", caseFirst: "lower" }), ["a", "A"]);
  t.deepEqual(await sorted({ locale: "en" }), ["a", "A"]);
});

// Engine-only: the options below are valid for mongod, which honours them; the engine's
// comparison cannot, so it refuses them (docs/embedded-mongo.md) instead of answering otherwise.
test("valid options the engine cannot honour fail with NotImplemented naming the option", async (t) => {
  const c = await collectionOf("unsupported", ["a-b", "ab", "a b", "AB"]);
  const cases: Array<[Document, RegExp]> = [
    [{ locale: "en", strength: 1, alternate: "shifted", maxVariable: "space" }, /maxVariable: "space"/],
    [{ locale: "fr", backwards: true }, /backwards: true/],
    [{ locale: "en", normalization: true }, /normalization: true/],
    [{ locale: "en", strength: 4 }, /strength 4/],
    [{ locale: "en", strength: 5 }, /strength 5/],
    [{ locale: "en", strength: 2, caseLevel: true }, /caseLevel: true/],
    [{ locale: "de@collation=phonebook" }, /@collation=phonebook/],
  ];
  for (const [collation, message] of cases) {
    const error = await t.throwsAsync(c.find({ n: "ab" }).collation(collation as CollationOptions).toArray(), { instanceOf: MongoServerError });
    t.is(error?.code, ErrorCodes.NotImplemented, message.source);
    t.regex(error?.message ?? "", message);
  }
  const index = await t.throwsAsync(c.createIndex({ n: 1 }, { collation: { locale: "en", backwards: true } }), { instanceOf: MongoServerError });
  t.is(index?.code, ErrorCodes.NotImplemented);
  const db = shared.client.db(shared.freshDb("view"));
  const view = await t.throwsAsync(
    db.createCollection("v", { viewOn: "c", pipeline: [], collation: { locale: "en", strength: 2 } }),
    { instanceOf: MongoServerError },
  );
  t.is(view?.code, ErrorCodes.NotImplemented);
  await db.createCollection("plain", { viewOn: "c", pipeline: [], collation: { locale: "simple" } });
});
