import { createMemoryPersister, createSyncDb, generateMutationId } from "../plugins/sync/client/index.js";
import { createFakeTransport } from "../plugins/sync/testing/index.js";
const ENTITIES = 10_000; const STREAM = "todos|owner:bench";
const auth = { getToken: () => "token", getUserId: () => "bench-user", onAuthChange: () => () => {} };
const todo = (index: number) => ({ id: `todo-${index}`, title: `Todo number ${index}`, done: index % 3 === 0, rank: index, ownerId: "bench-user" });
async function clientApplyRead() {
  const fake = createFakeTransport({ streams: { todos: [STREAM] } });
  const db = createSyncDb({ name: `b-${generateMutationId()}`, collections: ["todos"], transport: fake.transport, httpChannel: fake.httpChannel, authProvider: auth, persisterFactory: createMemoryPersister(), reconcileIntervalMs: 0, tabs: false });
  await db.start();
  while (db.getSyncStatus().streams[STREAM] === undefined) await new Promise((r) => setTimeout(r, 1));
  const started = performance.now();
  for (let index = 0; index < ENTITIES; index++) fake.emit({ type: "delta", delta: { collection: "todos", id: `todo-${index}`, method: "create", data: todo(index), seq: index + 1, stream: STREAM } });
  await new Promise((r) => setImmediate(r));
  let found = 0;
  for (let index = 0; index < ENTITIES; index++) if (db.store.get("todos", `todo-${index}`)?.data.rank === index) found++;
  const t = performance.now() - started;
  await db.stop();
  return t;
}
function mapApplyRead() {
  const s = performance.now(); const map = new Map<string, { data: Record<string, unknown>; seq: number; deleted: boolean }>();
  for (let index = 0; index < ENTITIES; index++) { const d = { collection: "todos", id: `todo-${index}`, method: "create", data: todo(index), seq: index + 1, stream: STREAM }; map.set(`${d.collection}/${d.id}`, { data: d.data, seq: d.seq, deleted: false }); }
  let f = 0; for (let index = 0; index < ENTITIES; index++) if (map.get(`todos/todo-${index}`)?.data.rank === index) f++;
  return performance.now() - s;
}
const med = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;
await clientApplyRead(); mapApplyRead();
const c: number[] = [], m: number[] = [];
for (let i = 0; i < 61; i++) { c.push(await clientApplyRead()); m.push(mapApplyRead()); }
console.log(`client ${med(c).toFixed(2)} map ${med(m).toFixed(2)} ratio ${(med(m) / med(c)).toFixed(3)}`);
