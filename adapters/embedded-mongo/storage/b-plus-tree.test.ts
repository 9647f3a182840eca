import test from "ava";
import { BPlusTree } from "./b-plus-tree.js";

/** Deterministic pseudo-random numbers so a failure is reproducible. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

test("random inserts and deletes keep the tree sorted and complete", (t) => {
  const next = random(7);
  const tree = new BPlusTree<number>((a, b) => a - b, 8);
  const model = new Set<number>();
  for (let i = 0; i < 5000; i++) {
    const value = Math.floor(next() * 2000);
    if (next() < 0.6) t.is(tree.insert(value), !model.has(value)), model.add(value);
    else t.is(tree.delete(value), model.has(value)), model.delete(value);
  }
  const expected = [...model].sort((a, b) => a - b);
  t.deepEqual([...tree.values()], expected);
  t.is(tree.size, expected.length);
  for (let i = 0; i < 50; i++) {
    const bound = Math.floor(next() * 2000);
    t.deepEqual([...tree.scan(tree.seek((n) => n < bound), "forward")], expected.filter((n) => n >= bound));
    t.deepEqual(
      [...tree.scan(tree.seek((n) => n <= bound), "backward")],
      expected.filter((n) => n <= bound).reverse(),
    );
  }
});

test("sequential appends, then deleting everything, leaves an empty usable tree", (t) => {
  const tree = new BPlusTree<number>((a, b) => a - b, 4);
  for (let i = 0; i < 1000; i++) tree.insert(i);
  t.deepEqual([...tree.values()].length, 1000);
  for (let i = 0; i < 1000; i++) t.true(tree.delete(i));
  t.is(tree.size, 0);
  t.deepEqual([...tree.values()], []);
  tree.insert(5);
  t.deepEqual([...tree.values()], [5]);
});

test("an open scan resumes correctly after the tree changes under it", (t) => {
  const tree = new BPlusTree<number>((a, b) => a - b, 4);
  for (let i = 0; i < 100; i += 2) tree.insert(i);
  const seen: number[] = [];
  const forward = tree.scan(tree.seek(() => false), "forward");
  for (const value of forward) {
    seen.push(value);
    if (value === 10) {
      tree.delete(12);
      tree.insert(11);
      tree.insert(-5);
      for (let i = 100; i < 200; i++) tree.insert(i);
    }
    if (value === 20) tree.delete(20);
  }
  t.deepEqual(seen.slice(0, 8), [0, 2, 4, 6, 8, 10, 11, 14]);
  t.is(seen[seen.length - 1], 199);
  t.false(seen.includes(-5));
  const backward: number[] = [];
  for (const value of tree.scan(tree.end(), "backward")) {
    backward.push(value);
    if (value === 150) for (let i = 151; i < 160; i++) tree.delete(i);
  }
  t.is(backward[0], 199);
  t.is(backward[backward.length - 1], -5);
});
