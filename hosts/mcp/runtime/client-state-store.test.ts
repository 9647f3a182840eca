import test from "ava";
import { ClientStateStore } from "./client-state-store.js";

test("keeps the latest report per client and drops the least recent client over the bound", (t) => {
  const store = new ClientStateStore(2);
  t.is(store.accept({ clientId: "a", state: 1 }), undefined);
  t.is(store.accept({ clientId: "b", state: 1 }), undefined);
  t.is(store.accept({ clientId: "a", state: 2 }), undefined);
  t.is(store.accept({ clientId: "c", state: 1 }), undefined);
  t.deepEqual(store.list().map((report) => [report.clientId, report.state]), [["c", 1], ["a", 2]], "b reported least recently");
  t.deepEqual(store.list("a").map((report) => report.state), [2]);
  t.deepEqual(store.list("b"), []);
});

test("refuses bodies that are not reports", (t) => {
  const store = new ClientStateStore(5);
  for (const body of [null, [], "x", {}, { clientId: "a" }, { clientId: "", state: 1 }, { clientId: "a b", state: 1 }, { clientId: "x".repeat(101), state: 1 }, { clientId: "a", state: 1, url: 5 }]) {
    t.truthy(store.accept(body), JSON.stringify(body));
  }
  t.deepEqual(store.list(), []);
});
