import test from "ava";
import { Long } from "bson";
import type { Document } from "bson";
import { EngineError } from "../engine-error.js";
import { CursorRegistry } from "./cursor-registry.js";

function docs(n: number): Document[] {
  return Array.from({ length: n }, (_, i) => ({ i }));
}

test("batches follow batchSize, default 101 first batch, and the last batch closes the cursor", (t) => {
  const registry = new CursorRegistry({ idleTimeoutMs: 1000 });
  const first = registry.open({ ns: "a.c", source: docs(250)[Symbol.iterator]() });
  t.is(first.docs.length, 101);
  t.false(first.id.isZero());
  const second = registry.getMore(first.id, "a.c", 100);
  t.is(second.docs.length, 100);
  const last = registry.getMore(first.id, "a.c", undefined);
  t.is(last.docs.length, 49);
  t.true(last.id.isZero());
  t.is(registry.size, 0);
  const exact = registry.open({ ns: "a.c", source: docs(3)[Symbol.iterator](), batchSize: 3 });
  t.true(exact.id.isZero(), "an exactly drained cursor is not left open");
});

test("limit and singleBatch end the cursor", (t) => {
  const registry = new CursorRegistry({ idleTimeoutMs: 1000 });
  const limited = registry.open({ ns: "a.c", source: docs(50)[Symbol.iterator](), limit: 5, batchSize: 2 });
  t.is(limited.docs.length, 2);
  t.is(registry.getMore(limited.id, "a.c", 10).docs.length, 3);
  const single = registry.open({ ns: "a.c", source: docs(50)[Symbol.iterator](), batchSize: 2, singleBatch: true });
  t.true(single.id.isZero());
});

test("batches stop before 16 MiB of documents", (t) => {
  const registry = new CursorRegistry({ idleTimeoutMs: 1000 });
  const big = "x".repeat(4 * 1024 * 1024);
  const first = registry.open({ ns: "a.c", source: Array.from({ length: 6 }, () => ({ big }))[Symbol.iterator](), batchSize: 100 });
  t.is(first.docs.length, 3);
  t.is(registry.getMore(first.id, "a.c", undefined).docs.length, 3);
});

test("idle, killed, unknown or foreign-namespace cursors fail as on mongod", (t) => {
  let now = 0;
  const registry = new CursorRegistry({ idleTimeoutMs: 100, now: () => now });
  const open = (): Long => registry.open({ ns: "a.c", source: docs(10)[Symbol.iterator](), batchSize: 1 }).id;
  const idle = open();
  now = 101;
  t.is(t.throws(() => registry.getMore(idle, "a.c", 1), { instanceOf: EngineError }).code, 43);
  const killed = open();
  t.true(registry.kill(killed));
  t.false(registry.kill(killed));
  t.is(t.throws(() => registry.getMore(killed, "a.c", 1), { instanceOf: EngineError }).code, 43);
  t.is(t.throws(() => registry.getMore(Long.fromNumber(42), "a.c", 1), { instanceOf: EngineError }).code, 43);
  const foreign = open();
  t.is(t.throws(() => registry.getMore(foreign, "a.other", 1), { instanceOf: EngineError }).code, 13);
  const swept = open();
  const pinned = registry.open({ ns: "a.c", source: docs(10)[Symbol.iterator](), batchSize: 1, noTimeout: true }).id;
  now += 1000;
  t.is(registry.sweep(), 2);
  t.is(registry.getMore(pinned, "a.c", 1).docs.length, 1, "noCursorTimeout cursors are not reaped");
  t.is(t.throws(() => registry.getMore(swept, "a.c", 1), { instanceOf: EngineError }).code, 43);
});
