import test from "ava";
import { serialize } from "bson";
import { operatorKeys, unstorableKeys } from "./body-keys.js";

/** Keys BSON refuses, at the top, nested and inside arrays. */
const NUL_KEYS: ReadonlyArray<[body: object, path: string]> = [
  [{ "a\u0000b": 1 }, "a\u0000b"],
  [{ meta: { "\u0000": 1 } }, "meta.\u0000"],
  [{ meta: { deep: [{ ok: 1 }, { "x\u0000": { y: 1 } }] } }, "meta.deep.1.x\u0000"],
];

test("a key containing NUL, at any depth, is what BSON cannot write and both checks refuse it", (t) => {
  for (const [body, path] of NUL_KEYS) {
    t.throws(() => serialize(body), undefined, "the driver's serializer refuses it");
    for (const check of [operatorKeys, unstorableKeys]) {
      t.deepEqual(check(body), [{ path, message: "must not contain a NUL character", keyword: "key" }], JSON.stringify(path));
    }
  }
  // NUL in values is data BSON stores as it is: not refused here.
  t.deepEqual(operatorKeys({ title: "a\u0000b", tags: ["\u0000"] }), []);
  t.notThrows(() => serialize({ title: "a\u0000b" }));
});

test("unstorableKeys leaves $-keys to the route; operatorKeys refuses them; both refuse bodies nested too deep", (t) => {
  t.deepEqual(unstorableKeys({ meta: { $gt: 1 } }), []);
  t.deepEqual(operatorKeys({ meta: { $gt: 1 } }).map((issue) => issue.keyword), ["operator"]);
  let deep: object = { leaf: 1 };
  for (let depth = 0; depth < 40; depth++) deep = { next: deep };
  t.deepEqual(unstorableKeys(deep).map((issue) => issue.keyword), ["depth"]);
  t.deepEqual(operatorKeys(deep).map((issue) => issue.keyword), ["depth"]);
});
