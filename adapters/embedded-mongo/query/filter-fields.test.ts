import test from "ava";
import { Int32 } from "bson";
import { filterFields } from "./filter-fields.js";

test("equality, $in and ranges on AND-ed paths", (t) => {
  const preds = filterFields({
    status: "A",
    qty: { $gte: new Int32(5), $lt: new Int32(10) },
    $and: [{ "a.b": { $eq: 1 } }, { tag: { $in: ["x", null] } }],
    $or: [{ x: 1 }],
    name: /^ab/,
    arr: [1, 2],
    other: { $ne: 3 },
  });
  t.deepEqual(
    preds.map((p) => [p.path, p.kind]),
    [
      ["status", "eq"],
      ["qty", "range"],
      ["qty", "range"],
      ["a.b", "eq"],
      ["tag", "in"],
    ],
  );
  const lower = preds[1]!;
  t.true(lower.kind === "range" && lower.min.inclusive && String(lower.max.value) === "Infinity");
  const upper = preds[2]!;
  t.true(upper.kind === "range" && !upper.max.inclusive && String(upper.min.value) === "-Infinity");
});

test("string ranges stop at the end of the string bracket; collation is flagged", (t) => {
  const [p] = filterFields({ s: { $gt: "m" } }, true);
  t.true(p!.kind === "range" && p!.max.inclusive === false && p!.collationSensitive);
  t.deepEqual(filterFields({ n: { $gte: null } }), [{ path: "n", kind: "eq", value: null, collationSensitive: false }]);
});
