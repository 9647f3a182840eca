import test from "ava";
import { Long } from "bson";
import type { Document } from "bson";
import { EngineError } from "../engine-error.js";
import { CursorRegistry } from "./cursor-registry.js";
import type { TailableSource } from "./tailable-source.js";

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

/** A tailable source over a list the test appends to; `ended` closes it after the queue drains. */
class FakeTailable implements TailableSource {
  readonly queue: Document[] = [];
  ended = false;
  delivered = 0;
  private readonly listeners = new Set<() => void>();
  peek(): Document | undefined {
    return this.queue[0];
  }
  consume(): void {
    this.queue.shift();
    this.delivered += 1;
  }
  get exhausted(): boolean {
    return this.ended && this.queue.length === 0;
  }
  batchFields(): Document {
    return { postBatchResumeToken: { delivered: this.delivered } };
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  push(doc: Document): void {
    this.queue.push(doc);
    for (const listener of this.listeners) listener();
  }
  get listenerCount(): number {
    return this.listeners.size;
  }
}

const OPERATION = { command: { getMore: Long.ONE, collection: "c" }, connection: { id: 7, remoteAddress: "test" } };

test("tailable cursors: every batch carries the source's fields, even empty ones; the cursor ends with the source", async (t) => {
  const registry = new CursorRegistry({ idleTimeoutMs: 1000 });
  const source = new FakeTailable();
  source.queue.push({ n: 1 }, { n: 2 }, { n: 3 });
  const first = registry.openTailable({ ns: "a.c", tailable: source, batchSize: 2 });
  t.deepEqual(first.docs, [{ n: 1 }, { n: 2 }]);
  t.deepEqual(first.toDocument()["postBatchResumeToken"], { delivered: 2 });
  t.false(first.id.isZero());
  const second = await registry.awaitMore(first.id, "a.c", undefined, 1, OPERATION);
  t.deepEqual(second.docs, [{ n: 3 }]);
  const empty = await registry.awaitMore(first.id, "a.c", undefined, 1, OPERATION);
  t.deepEqual(empty.docs, []);
  t.deepEqual(empty.toDocument()["postBatchResumeToken"], { delivered: 3 }, "an empty batch still has its fields");
  t.false(empty.id.isZero(), "an empty tailable batch keeps the cursor open");
  source.ended = true;
  const last = await registry.awaitMore(first.id, "a.c", undefined, 1, OPERATION);
  t.true(last.id.isZero());
  t.is(registry.size, 0);
});

test("tailable cursors: a waiting getMore wakes on new data, is in use meanwhile, and answers 43 when killed", async (t) => {
  let now = 0;
  const registry = new CursorRegistry({ idleTimeoutMs: 100, now: () => now });
  const source = new FakeTailable();
  const id = registry.openTailable({ ns: "a.c", tailable: source }).id;
  const waiting = registry.awaitMore(id, "a.c", undefined, 60_000, OPERATION);
  t.is(source.listenerCount, 1);
  const [described] = registry.describeCursors();
  t.is(described?.waiting?.connection.id, 7, "the waiting getMore is visible");
  t.is((await t.throwsAsync(registry.awaitMore(id, "a.c", undefined, 10, OPERATION), { instanceOf: EngineError }))?.code, 143);
  now += 10_000;
  t.is(registry.sweep(), 0, "a cursor a getMore waits on is never idle");
  source.push({ n: 1 });
  t.deepEqual((await waiting).docs, [{ n: 1 }]);
  t.is(source.listenerCount, 0, "the wait unsubscribes");
  const killedWhileWaiting = registry.awaitMore(id, "a.c", undefined, 60_000, OPERATION);
  t.true(registry.kill(id));
  t.is((await t.throwsAsync(killedWhileWaiting, { instanceOf: EngineError }))?.code, 43);
  t.is(source.listenerCount, 0);
});

test("tailable cursors: a wake-up without data keeps waiting until maxTimeMS, and idle tailable cursors still time out", async (t) => {
  let now = 0;
  const registry = new CursorRegistry({ idleTimeoutMs: 100, now: () => now });
  const source = new FakeTailable();
  const id = registry.openTailable({ ns: "a.c", tailable: source }).id;
  const waiting = registry.awaitMore(id, "a.c", undefined, 30, OPERATION);
  for (const listener of [...(source as unknown as { listeners: Set<() => void> }).listeners]) listener();
  t.deepEqual((await waiting).docs, []);
  now += 101;
  t.is(registry.sweep(), 1);
  t.is((await t.throwsAsync(registry.awaitMore(id, "a.c", undefined, 1, OPERATION), { instanceOf: EngineError }))?.code, 43);
});
