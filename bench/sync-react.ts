/**
 * Sync React benchmark (issue 18): a 1,000-row list rendered by `useQuery` over a sync client
 * (fake transport, so the store is the only difference), then 100 deltas applied to it one at a
 * time, each flushed to the DOM — against the same rows rendered through a plain
 * `useSyncExternalStore` over a `Map` receiving the same 100 updates, in the same run. react-dom
 * renders into happy-dom. Rounds alternate between the sides; the ratio is baseline time / sync
 * time (throughput of the sync side relative to the plain one; target ≥ 0.5).
 *
 * @example
 * npm run bench -- sync-react
 */
import { closeDom } from "../plugins/sync/react/test-support/dom-environment.js";
import { act } from "react";
import { createElement as h, memo, useSyncExternalStore } from "react";
import { createRoot } from "react-dom/client";
import { createSyncDb, type EntityRead, type SyncDb } from "../plugins/sync/client/index.js";
import { SyncDbProvider, useQuery } from "../plugins/sync/react/index.js";
import { createFakeTransport, type FakeTransport } from "../plugins/sync/testing/index.js";

const ROWS = 1_000;
const DELTAS = 100;
const ROUNDS = 3;
const TARGET = 0.5;
const STREAM = "todos|owner:fake";

type Todo = { id: string; title: string; done: boolean };
const titleOf = (index: number, version = 0) => `Todo ${String(index).padStart(4, "0")} v${version}`;

const Row = memo(function Row({ todo }: { todo: Readonly<Todo> }) {
  return h("li", null, `${todo.title}${todo.done ? " ✓" : ""}`);
});

function SyncList() {
  const rows = useQuery<Todo>("todos", { sort: "title" });
  return h("ul", null, rows.map((row) => h(Row, { key: row.data.id, todo: row.data })));
}

/** The baseline: a Map and a sorted array recomputed on each change, as a hand-written store would. */
function mapStore() {
  const map = new Map<string, Todo>();
  const listeners = new Set<() => void>();
  let sorted: readonly Todo[] = [];
  return {
    set(todo: Todo) {
      map.set(todo.id, todo);
      sorted = [...map.values()].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
      for (const listener of listeners) listener();
    },
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    getSnapshot: () => sorted,
  };
}

const container = () => {
  const document = (globalThis as unknown as { document: { createElement(tag: string): Element; body: { appendChild(node: Element): void; removeChild(node: Element): void } } }).document;
  const element = document.createElement("div");
  document.body.appendChild(element);
  return { element, remove: () => document.body.removeChild(element) };
};

const textOf = (element: Element) => (element as unknown as { textContent: string }).textContent;

async function syncSide(): Promise<number> {
  const fake: FakeTransport = createFakeTransport();
  for (let index = 0; index < ROWS; index++) fake.putEntity(STREAM, "todos", { id: `t${index}`, data: { id: `t${index}`, title: titleOf(index), done: false }, deleted: false });
  const db: SyncDb = createSyncDb({ name: "bench", collections: ["todos"], transport: fake.transport, httpChannel: fake.httpChannel, authProvider: { getToken: () => "t", getUserId: () => "u", onAuthChange: () => () => undefined } });
  await db.start();
  while (db.store.ids("todos").length < ROWS || db.getSyncStatus().isSyncing) await new Promise((resolve) => setTimeout(resolve, 5));
  const { element, remove } = container();
  const root = createRoot(element);
  const started = process.hrtime.bigint();
  act(() => root.render(h(SyncDbProvider, { client: db }, h(SyncList))));
  for (let delta = 0; delta < DELTAS; delta++) {
    const index = (delta * 37) % ROWS;
    // The fake delivers on a microtask, as off a socket: the act waits for it.
    await act(async () => {
      fake.deliverDelta({ collection: "todos", id: `t${index}`, method: "update", data: { id: `t${index}`, title: titleOf(index, 1), done: delta % 2 === 0 }, stream: STREAM });
      await null;
    });
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (!textOf(element).includes(titleOf((99 * 37) % ROWS, 1))) throw new Error("the sync list did not show the last delta");
  act(() => root.unmount());
  remove();
  await db.stop();
  return seconds;
}

async function plainSide(): Promise<number> {
  const store = mapStore();
  for (let index = 0; index < ROWS; index++) store.set({ id: `t${index}`, title: titleOf(index), done: false });
  function PlainList() {
    const rows = useSyncExternalStore(store.subscribe, store.getSnapshot);
    return h("ul", null, rows.map((row) => h(Row, { key: row.id, todo: row })));
  }
  const { element, remove } = container();
  const root = createRoot(element);
  const started = process.hrtime.bigint();
  act(() => root.render(h(PlainList)));
  for (let delta = 0; delta < DELTAS; delta++) {
    const index = (delta * 37) % ROWS;
    await act(async () => {
      store.set({ id: `t${index}`, title: titleOf(index, 1), done: delta % 2 === 0 });
      await null;
    });
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (!textOf(element).includes(titleOf((99 * 37) % ROWS, 1))) throw new Error("the plain list did not show the last update");
  act(() => root.unmount());
  remove();
  return seconds;
}

export default async function benchSyncReact(): Promise<void> {
  const sync: number[] = [];
  const plain: number[] = [];
  // One warm-up of each (JIT, React's first render paths), not counted.
  await syncSide();
  await plainSide();
  for (let round = 0; round < ROUNDS; round++) {
    sync.push(await syncSide());
    plain.push(await plainSide());
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const ms = (seconds: number) => `${(seconds * 1000).toFixed(1)} ms`;
  const ratio = median(plain) / median(sync);
  console.log(`  ${ROWS} rows rendered, then ${DELTAS} deltas each flushed to the DOM (react-dom in happy-dom), median of ${ROUNDS} alternating rounds`);
  console.log(`  useQuery over the sync client ${ms(median(sync))}   useSyncExternalStore over a Map ${ms(median(plain))}   ratio ${ratio.toFixed(2)} (${ratio >= TARGET ? "meets" : "MISSES"} target ≥ ${TARGET})`);
  await closeDom();
}
