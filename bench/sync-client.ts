/**
 * Sync client benchmark (issue 14), each part against a baseline measured in the same run:
 * (a) applying 10,000 `sync:delta`s to the client's store and reading the 10,000 entities back,
 *     vs the same work on a plain `Map` (store each delta's state by key, read each back) —
 *     target ≥ 0.3× throughput. The client runs as shipped in Node: the in-memory persister
 *     (records copied as a real store would serialise them), status, listeners;
 * (b) cold start from an encrypted IndexedDB store of 10,000 entities (fake-indexeddb in Node:
 *     a pure-JS IndexedDB, slower than a browser's) until `start()` resolves, vs decrypting the
 *     same 10,000 records alone (Web Crypto AES-GCM) — reported as ms and ratio;
 * (c) persisted enqueue: `mutate()` plus its IndexedDB write, per mutation, with 5,000 mutations
 *     already queued vs with 100 — target ≤ 1.5× (one record written per mutation, never the outbox);
 *     also the persister's write alone, and the alternative of one encrypted outbox blob.
 * Sides alternate in rounds so drift on a shared machine hits both; medians are compared.
 *
 * @example
 * npm run bench -- sync-client
 */
import "fake-indexeddb/auto";
import { openDB } from "idb";
import { createIndexedDbPersister, createMemoryPersister, createSyncDb, generateMutationId, localKeyProvider, type PersistedChange, type SyncDb, type SyncPersisterFactory } from "../plugins/sync/client/index.js";
import { recordCipher, type SealedRecord, type WebCryptoKey } from "../plugins/sync/client/record-cipher.js";
import { createFakeTransport } from "../plugins/sync/testing/index.js";

const ENTITIES = 10_000;
const ROUNDS = 11;
/** (a) rounds are ~15 ms each: enough of them for a median that a scheduler hiccup does not move. */
const APPLY_ROUNDS = 41;
const ENQUEUE = { small: 100, large: 5_000, measured: 300, rounds: 9 } as const;
const TARGETS = { applyRead: 0.3, enqueue: 1.5 } as const;
const STREAM = "todos|owner:bench";
const auth = { getToken: () => "token", getUserId: () => "bench-user", onAuthChange: () => () => {} };

const now = () => performance.now();
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fixed = (value: number) => value.toFixed(2).padStart(9);

function verdict(name: string, ratio: number, target: number, atMost: boolean): void {
  const met = atMost ? ratio <= target : ratio >= target;
  console.log(`  target ${name}: ratio ${ratio.toFixed(2)} (${atMost ? "≤" : "≥"} ${target}): ${met ? "met" : "NOT MET"}`);
}

const todo = (index: number) => ({ id: `todo-${index}`, title: `Todo number ${index}`, done: index % 3 === 0, rank: index, ownerId: "bench-user" });

function client(name: string, persisterFactory: SyncPersisterFactory, fake = createFakeTransport({ streams: { todos: [STREAM] } })): { db: SyncDb; fake: ReturnType<typeof createFakeTransport> } {
  const db = createSyncDb({ name, collections: ["todos"], transport: fake.transport, httpChannel: fake.httpChannel, authProvider: auth, persisterFactory, reconcileIntervalMs: 0, tabs: false });
  return { db, fake };
}

/** (a) One round: a fresh started client takes 10,000 deltas, then every entity is read. */
async function clientApplyRead(): Promise<number> {
  const { db, fake } = client(`bench-a-${generateMutationId()}`, createMemoryPersister());
  await db.start();
  while (db.getSyncStatus().streams[STREAM] === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
  const started = now();
  for (let index = 0; index < ENTITIES; index++) {
    fake.emit({ type: "delta", delta: { collection: "todos", id: `todo-${index}`, method: "create", data: todo(index), seq: index + 1, stream: STREAM } });
  }
  // The fake delivers events in microtasks, as off a socket: all have been applied after this.
  await new Promise((resolve) => setImmediate(resolve));
  let found = 0;
  for (let index = 0; index < ENTITIES; index++) if (db.store.get("todos", `todo-${index}`)?.data.rank === index) found++;
  const elapsed = now() - started;
  if (found !== ENTITIES) throw new Error(`read ${found} of ${ENTITIES}`);
  await db.stop();
  return elapsed;
}

function mapApplyRead(): number {
  const started = now();
  const map = new Map<string, { data: Record<string, unknown>; seq: number; deleted: boolean }>();
  for (let index = 0; index < ENTITIES; index++) {
    const delta = { collection: "todos", id: `todo-${index}`, method: "create", data: todo(index), seq: index + 1, stream: STREAM };
    map.set(`${delta.collection}/${delta.id}`, { data: delta.data, seq: delta.seq, deleted: false });
  }
  let found = 0;
  for (let index = 0; index < ENTITIES; index++) if (map.get(`todos/todo-${index}`)?.data.rank === index) found++;
  const elapsed = now() - started;
  if (found !== ENTITIES) throw new Error(`read ${found} of ${ENTITIES}`);
  return elapsed;
}

/** (b) A stored encrypted database of 10,000 entities, written in chunks through the persister. */
async function encryptedStore(name: string): Promise<SyncPersisterFactory> {
  const factory = createIndexedDbPersister({ keyProvider: localKeyProvider() });
  const persister = await factory({ name, userId: "bench-user" });
  await persister.load();
  for (let start = 0; start < ENTITIES; start += 1_000) {
    const changes: PersistedChange[] = [];
    for (let index = start; index < Math.min(ENTITIES, start + 1_000); index++) {
      changes.push({ table: "entities", key: `todos/todo-${index}`, value: { collection: "todos", id: `todo-${index}`, data: todo(index), seq: index + 1, deleted: false, stream: STREAM } });
    }
    await persister.write(changes);
  }
  await persister.write([{ table: "_cursors", key: STREAM, value: { stream: STREAM, collection: "todos", cursor: ENTITIES } }]);
  await persister.close?.();
  return factory;
}

async function coldStart(name: string, factory: SyncPersisterFactory): Promise<number> {
  const { db } = client(name, factory);
  db.goOffline();
  const started = now();
  await db.start();
  const elapsed = now() - started;
  if (db.store.list("todos").length !== ENTITIES) throw new Error("cold start did not load every entity");
  await db.stop();
  return elapsed;
}

/** Decrypting the stored records alone, with the same key and cipher (the records already read). */
async function decryptOnly(name: string): Promise<number> {
  const found = (await (globalThis as unknown as { indexedDB: { databases(): Promise<Array<{ name?: string }>> } }).indexedDB.databases()).find((info) => info.name?.startsWith(`svc-sync:${name}:`));
  const idb = await openDB(found!.name!);
  const records = (await idb.getAll("entities")) as Array<SealedRecord & { key: string }>;
  const base = ((await idb.get("keys", "base")) as { base: WebCryptoKey }).base;
  idb.close();
  const cipher = await recordCipher(base, name);
  const started = now();
  const opened = await Promise.all(records.map((record) => cipher.open(record.key, record)));
  const elapsed = now() - started;
  if (opened.length !== ENTITIES) throw new Error(`decrypted ${opened.length}`);
  return elapsed;
}

/** Waits for the write a mutation started: the client hands it to the persister after the current step. */
async function written(last: () => Promise<void>): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await last();
}

/** (c) Per-mutation cost of `mutate()` and its stored write, with `queued` mutations already in the outbox. */
async function enqueueCost(queued: number): Promise<number> {
  let lastWrite: Promise<void> = Promise.resolve();
  const inner = createIndexedDbPersister({ keyProvider: localKeyProvider() });
  const factory: SyncPersisterFactory = async (context) => {
    const persister = await inner(context);
    return { ...persister, kind: persister.kind, load: () => persister.load(), clear: () => persister.clear(), close: () => persister.close!(), write: (changes) => (lastWrite = persister.write(changes)) };
  };
  const { db } = client(`bench-c-${generateMutationId()}`, factory);
  db.goOffline();
  await db.start();
  for (let index = 0; index < queued; index++) db.mutate({ collection: "todos", operation: "create", data: { title: `queued ${index}` } });
  await written(() => lastWrite);
  // Measured after a reload (the usual way a long outbox is met): right after writing a burst of
  // 5,000 records, fake-indexeddb and the crypto jobs still have work in flight for a few seconds
  // (a 3 s pause has the same effect as the reload), which is not the cost of one enqueue.
  await db.stop();
  db.goOffline();
  await db.start();
  const started = now();
  for (let index = 0; index < ENQUEUE.measured; index++) {
    db.mutate({ collection: "todos", operation: "create", data: { title: `measured ${index}` } });
    await written(() => lastWrite);
  }
  const elapsed = (now() - started) / ENQUEUE.measured;
  await db.stop();
  return elapsed;
}

/** The persister alone: one outbox record written per enqueue, with `queued` rows already stored. */
async function persisterEnqueueCost(queued: number): Promise<number> {
  const row = (order: number) => ({ mutationId: generateMutationId(), order, collection: "todos", operation: "create" as const, id: generateMutationId(), data: { title: `queued ${order}` }, status: "queued" as const, attempts: 0, createdAt: order });
  const persister = await createIndexedDbPersister({ keyProvider: localKeyProvider() })({ name: `bench-p-${generateMutationId()}`, userId: "bench-user" });
  await persister.load();
  await persister.write(Array.from({ length: queued }, (_, index) => row(index)).map((value) => ({ table: "_outbox" as const, key: value.mutationId, value })));
  const started = now();
  for (let index = 0; index < ENQUEUE.measured; index++) {
    const value = row(queued + index);
    await persister.write([{ table: "_outbox", key: value.mutationId, value }]);
  }
  const elapsed = (now() - started) / ENQUEUE.measured;
  await persister.close?.();
  return elapsed;
}

/**
 * The alternative not taken, measured the same way: the outbox kept as one encrypted blob,
 * rewritten on every enqueue (what a key-value wrapper such as idb-keyval, or a persister that
 * saves whole tables, does). Per mutation: serialise, encrypt and put the whole outbox.
 */
async function blobEnqueueCost(queued: number): Promise<number> {
  const idb = await openDB(`bench-blob-${generateMutationId()}`, 1, { upgrade: (database) => void database.createObjectStore("blobs") });
  const base = await crypto.subtle.importKey("raw", crypto.getRandomValues(new Uint8Array(32)), "HKDF", false, ["deriveKey"]);
  const cipher = await recordCipher(base, "blob");
  const rows = Array.from({ length: queued }, (_, index) => ({ mutationId: generateMutationId(), order: index, collection: "todos", operation: "create", id: generateMutationId(), data: { title: `queued ${index}` }, status: "queued", attempts: 0, createdAt: index }));
  const rounds = 20;
  const started = now();
  for (let index = 0; index < rounds; index++) {
    rows.push({ ...rows[0]!, mutationId: generateMutationId(), order: queued + index });
    await idb.put("blobs", await cipher.seal("outbox", rows), "outbox");
  }
  const elapsed = (now() - started) / rounds;
  idb.close();
  return elapsed;
}

export default async function benchSyncClient(): Promise<void> {
  console.log(`  (a) apply ${ENTITIES} deltas + read ${ENTITIES} entities, ${APPLY_ROUNDS} rounds per side (ms, median)`);
  const clientTimes: number[] = [];
  const mapTimes: number[] = [];
  await clientApplyRead(); // warm-up
  mapApplyRead();
  for (let round = 0; round < APPLY_ROUNDS; round++) {
    clientTimes.push(await clientApplyRead());
    mapTimes.push(mapApplyRead());
  }
  const applyRatio = median(mapTimes) / median(clientTimes);
  console.log(`    client ${fixed(median(clientTimes))}   plain Map ${fixed(median(mapTimes))}   throughput ratio ${applyRatio.toFixed(3)}`);
  verdict("apply+read throughput vs Map", applyRatio, TARGETS.applyRead, false);

  console.log(`  (b) cold start from an encrypted IndexedDB store of ${ENTITIES} entities (fake-indexeddb), ${ROUNDS} rounds (ms, median)`);
  const name = `bench-b-${generateMutationId()}`;
  const factory = await encryptedStore(name);
  const starts: number[] = [];
  const decrypts: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    starts.push(await coldStart(name, factory));
    decrypts.push(await decryptOnly(name));
  }
  console.log(`    cold start ${fixed(median(starts))}   decrypt only ${fixed(median(decrypts))}   ratio ${(median(starts) / median(decrypts)).toFixed(2)}`);

  console.log(`  (c) persisted enqueue, ${ENQUEUE.measured} mutations measured per round, ${ENQUEUE.rounds} rounds (ms per mutation, median)`);
  const small: number[] = [];
  const large: number[] = [];
  for (let round = 0; round < ENQUEUE.rounds; round++) {
    small.push(await enqueueCost(ENQUEUE.small));
    large.push(await enqueueCost(ENQUEUE.large));
  }
  const enqueueRatio = median(large) / median(small);
  console.log(`    with ${ENQUEUE.small} queued ${fixed(median(small))}   with ${ENQUEUE.large} queued ${fixed(median(large))}   ratio ${enqueueRatio.toFixed(2)}`);
  verdict(`enqueue cost ${ENQUEUE.large} vs ${ENQUEUE.small} queued`, enqueueRatio, TARGETS.enqueue, true);
  const persisterSmall: number[] = [];
  const persisterLarge: number[] = [];
  for (let round = 0; round < ENQUEUE.rounds; round++) {
    persisterSmall.push(await persisterEnqueueCost(ENQUEUE.small));
    persisterLarge.push(await persisterEnqueueCost(ENQUEUE.large));
  }
  console.log(`    the IndexedDB persister alone (encrypt + one-record transaction): with ${ENQUEUE.small} queued ${fixed(median(persisterSmall))}   with ${ENQUEUE.large} ${fixed(median(persisterLarge))}   ratio ${(median(persisterLarge) / median(persisterSmall)).toFixed(2)}`);
  const blobSmall: number[] = [];
  const blobLarge: number[] = [];
  for (let round = 0; round < ENQUEUE.rounds; round++) {
    blobSmall.push(await blobEnqueueCost(ENQUEUE.small));
    blobLarge.push(await blobEnqueueCost(ENQUEUE.large));
  }
  console.log(`    alternative, the outbox as one encrypted blob: with ${ENQUEUE.small} queued ${fixed(median(blobSmall))}   with ${ENQUEUE.large} ${fixed(median(blobLarge))}   ratio ${(median(blobLarge) / median(blobSmall)).toFixed(2)}`);
}
