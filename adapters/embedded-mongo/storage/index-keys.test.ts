import test from "ava";
import { EngineError } from "../engine-error.js";
import { extractIndexKeys } from "./index-keys.js";

test("missing fields key as null; arrays key per element; sub-document arrays are walked", (t) => {
  t.deepEqual(extractIndexKeys({}, [{ path: "a", direction: 1 }]), { keys: [[null]], multikey: false, allMissing: true });
  t.deepEqual(extractIndexKeys({ a: [1, 2] }, [{ path: "a", direction: 1 }]).keys, [[1], [2]]);
  t.deepEqual(extractIndexKeys({ a: [] }, [{ path: "a", direction: 1 }]).keys, [[[]]]);
  t.deepEqual(extractIndexKeys({ a: [{ b: 1 }, { c: 2 }] }, [{ path: "a.b", direction: 1 }]).keys, [[1], [null]]);
  t.deepEqual(
    extractIndexKeys({ a: "x", b: [1, 2] }, [{ path: "a", direction: 1 }, { path: "b", direction: -1 }]).keys,
    [["x", 1], ["x", 2]],
  );
});

test("two array fields in one compound key are refused (171)", (t) => {
  const error = t.throws(() => extractIndexKeys({ a: [1], b: [2] }, [{ path: "a", direction: 1 }, { path: "b", direction: 1 }]), {
    instanceOf: EngineError,
  });
  t.is(error.code, 171);
});
