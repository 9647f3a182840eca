import test from "ava";
import { Double, MongoServerError } from "mongodb";
import type { Document } from "mongodb";
import { useFileEngine } from "../test-support/file-engine.js";

const shared = useFileEngine(test, "strings");

/** Evaluates `expression` (and its `$type`) against `doc` through `aggregate`. */
async function evaluate(expression: Document, doc: Document = {}): Promise<Document> {
  const c = shared.client.db(shared.freshDb("eval")).collection<Document>("c");
  await c.insertOne({ ...doc });
  const [out] = await c.aggregate([{ $project: { _id: 0, v: expression, t: { $type: expression } } }]).toArray();
  return out!;
}

async function failure(expression: Document, doc: Document = {}): Promise<MongoServerError | undefined> {
  return (await evaluate(expression, doc).then(
    () => undefined,
    (error: unknown) => error,
  )) as MongoServerError | undefined;
}

test("$strcasecmp compares case-insensitively and converts its arguments to strings first", async (t) => {
  t.deepEqual(await evaluate({ $strcasecmp: ["ABC", "abd"] }), { v: -1, t: "int" });
  t.deepEqual(await evaluate({ $strcasecmp: ["Hello", "hELLO"] }), { v: 0, t: "int" });
  t.deepEqual(await evaluate({ $strcasecmp: ["b", "A"] }), { v: 1, t: "int" });
  t.deepEqual(await evaluate({ $strcasecmp: [null, ""] }), { v: 0, t: "int" });
  t.deepEqual(await evaluate({ $strcasecmp: ["$missing", ""] }), { v: 0, t: "int" });
  t.deepEqual(await evaluate({ $strcasecmp: [1, "1"] }), { v: 0, t: "int" });
  const arity = await failure({ $strcasecmp: ["a"] });
  t.is(arity?.code, 16020);
});

test("$split follows the manual's examples, keeps characters whole and refuses an empty separator", async (t) => {
  t.deepEqual((await evaluate({ $split: ["June-15-2013", "-"] })).v, ["June", "15", "2013"]);
  t.deepEqual((await evaluate({ $split: ["banana split", "a"] })).v, ["b", "n", "n", " split"]);
  t.deepEqual((await evaluate({ $split: ["astronomical", "astro"] })).v, ["", "nomical"]);
  t.deepEqual((await evaluate({ $split: ["pea green boat", "owl"] })).v, ["pea green boat"]);
  t.deepEqual((await evaluate({ $split: ["$s", "·"] }, { s: "😀·寿司" })).v, ["😀", "寿司"]);
  const number = await failure({ $split: ["headphone jack", new Double(7)] });
  t.is(number?.message, "$split requires an expression that evaluates to a string as a second argument, found: double");
  const regex = await failure({ $split: ["headphone jack", /jack/] });
  t.is(regex?.message, "$split requires an expression that evaluates to a string as a second argument, found: regex");
  const empty = await failure({ $split: ["$s", ""] }, { s: "😀" });
  t.is(empty?.code, 40087);
});

test("$strLenCP counts code points and $strLenBytes UTF-8 bytes, as Int32; a missing field fails", async (t) => {
  t.deepEqual(await evaluate({ $strLenCP: { $literal: "$€λA" } }), { v: 4, t: "int" });
  t.deepEqual(await evaluate({ $strLenCP: "$s" }, { s: "寿司" }), { v: 2, t: "int" });
  t.deepEqual(await evaluate({ $strLenCP: "$s" }, { s: "😀" }), { v: 1, t: "int" });
  t.deepEqual(await evaluate({ $strLenCP: "" }), { v: 0, t: "int" });
  t.deepEqual(await evaluate({ $strLenBytes: "cafétéria" }), { v: 11, t: "int" });
  t.deepEqual(await evaluate({ $strLenBytes: { $literal: "$€λG" } }), { v: 7, t: "int" });
  t.deepEqual(await evaluate({ $strLenBytes: "$s" }, { s: "寿司" }), { v: 6, t: "int" });
  t.is((await failure({ $strLenCP: "$missing" }))?.code, 34471);
  t.is((await failure({ $strLenBytes: "$missing" }))?.code, 34473);
});
