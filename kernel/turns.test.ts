import test from "ava";
import { Turns } from "./turns.js";

test("holders of one key take turns in the order they asked; other keys do not wait", async (t) => {
  const turns = new Turns();
  const order: string[] = [];
  const first = await turns.take(["a"]);
  const second = turns.take(["a"]).then((release) => {
    order.push("second");
    release();
  });
  const other = turns.take(["b"]).then((release) => {
    order.push("other key");
    release();
  });
  await other;
  t.deepEqual(order, ["other key"], "b is free while a is held");
  order.push("first done");
  first();
  await second;
  t.deepEqual(order, ["other key", "first done", "second"]);
});

test("two holders asking for the same keys in opposite orders never wait for each other", async (t) => {
  const turns = new Turns(60_000); // a deadlock would hang the test, not end in a timeout
  const one = await turns.take(["x", "y"]);
  const got: string[] = [];
  const holder = (name: string, keys: string[]) => turns.take(keys).then((release) => {
    got.push(name);
    release();
  });
  const both = Promise.all([holder("y then x", ["y", "x"]), holder("x then y", ["x", "y"])]);
  one();
  await both;
  t.deepEqual(got, ["y then x", "x then y"]);
});

test("a holder that never releases delays the next one by at most maxWaitMs", async (t) => {
  const turns = new Turns(20);
  await turns.take(["stuck"]); // never released
  const release = await turns.take(["stuck"]);
  release();
  t.pass("the next holder got its turn");
});
