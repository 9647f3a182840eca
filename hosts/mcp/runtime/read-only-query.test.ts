import test from "ava";
import { findRefusedOperator } from "./read-only-query.js";

test("finds write stages and server-side JavaScript at any depth", (t) => {
  t.is(findRefusedOperator([{ $match: { done: true } }, { $out: "copy" }]), "$out");
  t.is(findRefusedOperator([{ $merge: { into: "copy" } }]), "$merge");
  t.is(findRefusedOperator([{ $facet: { a: [{ $match: {} }], b: [{ $out: "copy" }] } }]), "$out");
  t.is(findRefusedOperator([{ $unionWith: { coll: "x", pipeline: [{ $merge: "y" }] } }]), "$merge");
  t.is(findRefusedOperator({ $where: "sleep(1000)" }), "$where");
  t.is(findRefusedOperator({ $expr: { $function: { body: "", args: [], lang: "js" } } }), "$function");
  t.is(findRefusedOperator([{ $group: { _id: null, x: { $accumulator: {} } } }]), "$accumulator");
});

test("reading queries pass, string values that look like operators included", (t) => {
  t.is(findRefusedOperator([{ $match: { title: "$out" } }, { $group: { _id: "$done", n: { $sum: 1 } } }, { $sort: { n: -1 } }]), undefined);
  t.is(findRefusedOperator({ tags: { $in: ["$merge", "a"] } }), undefined);
  t.is(findRefusedOperator(undefined), undefined);
});

test("a query too deep to check is refused", (t) => {
  let deep: unknown = { $match: {} };
  for (let level = 0; level < 100; level++) deep = { $and: [deep] };
  t.regex(findRefusedOperator(deep) ?? "", /deeper than/);
});
