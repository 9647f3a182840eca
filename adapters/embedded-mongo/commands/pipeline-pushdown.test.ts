import test from "ava";
import { Int32 } from "bson";
import { thrownCode } from "../test-support/thrown-code.js";
import { splitPipelinePushdown } from "./pipeline-pushdown.js";

test("leading $match stages are ANDed; then one $sort, then $skip/$limit are taken over", (t) => {
  const project = { $project: { a: 1 } };
  t.deepEqual(splitPipelinePushdown([{ $match: { a: 1 } }, { $match: { b: 2 } }, { $sort: { a: 1 } }, { $skip: 2 }, { $limit: new Int32(5) }, { $limit: 3 }, project]), {
    filter: { $and: [{ a: 1 }, { b: 2 }] },
    sort: { a: 1 },
    skip: 2,
    limit: 3,
    rest: [project],
  });
});

test("the prefix ends at the first stage the planner cannot take over", (t) => {
  const group = { $group: { _id: "$a" } };
  t.deepEqual(splitPipelinePushdown([group, { $match: { a: 1 } }]), { filter: {}, sort: undefined, skip: 0, limit: 0, rest: [group, { $match: { a: 1 } }] });
  // A $match after the $sort would filter sorted output: it stays in the pipeline.
  t.deepEqual(splitPipelinePushdown([{ $sort: { a: 1 } }, { $match: { a: 1 } }]).rest, [{ $match: { a: 1 } }]);
  // A $skip after a $limit would need the limit applied first.
  t.deepEqual(splitPipelinePushdown([{ $limit: 5 }, { $skip: 1 }]).rest, [{ $skip: 1 }]);
  t.deepEqual(splitPipelinePushdown([{ $limit: 1.5 }]).rest, [{ $limit: 1.5 }]);
});

test("$limit: 0 is refused with 15958", (t) => {
  t.is(thrownCode(() => splitPipelinePushdown([{ $limit: 0 }])), 15958);
});
