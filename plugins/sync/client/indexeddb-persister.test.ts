import "fake-indexeddb/auto";
import test from "ava";
import { openDB } from "idb";
import { createFakeTransport, type FakeTransport } from "../testing/index.js";
import { createIndexedDbPersister, createSyncDb, generateMutationId, localKeyProvider, type DecryptFailureHandler, type SyncDb, type SyncDbOptions, wipeLocalData } from "./index.js";
import { eventually, settled, waitForStatus } from "./test-support/wait-for.js";

// The encrypted IndexedDB persister in Node, on fake-indexeddb (imported above: it installs a
// global `indexedDB`, which makes it createSyncDb's default persister).

const STREAM = "todos|owner:fake";
// The global fake-indexeddb installed (the project's types have no DOM lib).
const indexedDB = (globalThis as unknown as { indexedDB: { databases(): Promise<Array<{ name?: string }>> } }).indexedDB;
const SECRET = "Plaintext-Marker-4711";

const auth = { getToken: () => "token-1", getUserId: () => "u1", onAuthChange: () => () => {} };

function client(t: { teardown: (fn: () => Promise<void>) => void }, fake: FakeTransport, name: string, options: Partial<SyncDbOptions> = {}): SyncDb {
  const db = createSyncDb({ name, collections: ["todos"], transport: fake.transport, httpChannel: fake.httpChannel, authProvider: auth, ...options });
  t.teardown(() => db.stop());
  return db;
}

/** Every record of the client's IndexedDB database, store by store, as stored. */
async function rawDatabase(name: string): Promise<Record<string, unknown[]>> {
  const found = (await indexedDB.databases()).find((info) => info.name?.startsWith(`svc-sync:${name}:`));
  if (!found?.name) throw new Error(`no database for ${name}`);
  const db = await openDB(found.name);
  try {
    const stores = [...db.objectStoreNames];
    return Object.fromEntries(await Promise.all(stores.map(async (store) => [store, await db.getAll(store)] as const)));
  } finally {
    db.close();
  }
}

/** The bytes of every stored record (keys, IVs and ciphertexts) as text, to search for plaintext. */
function asText(value: unknown): string {
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString("latin1");
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("latin1");
  if (Array.isArray(value)) return value.map(asText).join("|");
  if (value && typeof value === "object") return Object.entries(value).map(([key, inner]) => `${key}=${asText(inner)}`).join("|");
  return String(value);
}

const uniqueName = () => `idb-${generateMutationId()}`;

test("stored records hold no plaintext field value or entity id; a restart reads them back (persistence durable)", async (t) => {
  const fake = createFakeTransport();
  const name = uniqueName();
  const written: unknown[] = [];
  const first = client(t, fake, name, { idbSetImpl: async (_key, value) => void written.push(value) });
  await first.start();
  await waitForStatus(first, settled);
  t.is(first.getSyncStatus().persistence, "durable");
  fake.deliverDelta({ collection: "todos", id: "server-entity-1", method: "create", data: { title: `${SECRET} from the server` }, stream: STREAM });
  await eventually(() => first.store.get("todos", "server-entity-1") !== undefined);
  first.goOffline();
  const { id } = first.mutate({ collection: "todos", operation: "create", data: { title: `${SECRET} typed offline`, note: "x".repeat(40) } });
  await first.stop();

  const raw = await rawDatabase(name);
  const text = asText(raw);
  t.true(raw.entities!.length >= 1 && raw.outbox!.length === 1 && raw.cursors!.length === 1);
  for (const needle of [SECRET, "server-entity-1", id, STREAM, "title", "xxxxxxxxxx"]) t.false(text.includes(needle), `${needle} is stored readable`);
  t.true(written.length >= 3);
  t.false(asText(written).includes(SECRET));

  const second = client(t, fake, name);
  second.goOffline();
  await second.start();
  t.like(second.getSyncStatus(), { persistence: "durable", queuedCount: 1, streams: { [STREAM]: 1 } });
  t.like(second.store.get("todos", id), { isPending: true, data: { title: `${SECRET} typed offline` } });
  t.like(second.store.get("todos", "server-entity-1"), { isPending: false, seq: 1 });
  second.goOnline();
  await waitForStatus(second, settled);
  t.is(fake.sent.length, 1);
});

test("signOut with wipeOnSignOut deletes the stored copy (the persister stop() closed is not reused); wipeLocalData after stop too", async (t) => {
  const fake = createFakeTransport();
  const name = uniqueName();
  const first = client(t, fake, name, { wipeOnSignOut: true });
  await first.start();
  await waitForStatus(first, settled);
  fake.deliverDelta({ collection: "todos", id: "synced", method: "create", data: { title: "synced" }, stream: STREAM });
  await eventually(() => first.store.get("todos", "synced") !== undefined);
  first.goOffline();
  first.mutate({ collection: "todos", operation: "create", data: { title: "pending" } });
  await first.signOut();
  const raw = await rawDatabase(name);
  t.deepEqual([raw.entities!.length, raw.outbox!.length, raw.cursors!.length], [0, 0, 0]);
  // The next user of the device starts from nothing.
  const next = client(t, fake, name);
  next.goOffline();
  await next.start();
  t.deepEqual(next.store.list("todos"), []);
  t.is(next.outbox.count(), 0);
  next.mutate({ collection: "todos", operation: "create", data: { title: "left behind" } });
  await next.stop();
  await wipeLocalData(next);
  t.is((await rawDatabase(name)).outbox!.length, 0);
});

test("one mutation with a long outbox writes one record (never the whole outbox)", async (t) => {
  const fake = createFakeTransport();
  let writes = 0;
  const db = client(t, fake, uniqueName(), { idbSetImpl: async () => void writes++ });
  db.goOffline();
  await db.start();
  for (let index = 0; index < 300; index++) db.mutate({ collection: "todos", operation: "create", data: { title: `row ${index}` } });
  await db.stop();
  await db.start();
  t.is(db.outbox.count(), 300);
  writes = 0;
  db.mutate({ collection: "todos", operation: "create", data: { title: "one more" } });
  await db.stop();
  t.is(writes, 1);
});

/** Replaces the device's stored base key with another one: the stored data no longer opens. */
async function swapStoredKey(name: string): Promise<void> {
  const found = (await indexedDB.databases()).find((info) => info.name?.startsWith(`svc-sync:${name}:`));
  const db = await openDB(found!.name!);
  const other = await crypto.subtle.importKey("raw", crypto.getRandomValues(new Uint8Array(32)), "HKDF", false, ["deriveKey"]);
  await db.put("keys", { key: "base", base: other });
  db.close();
}

async function storedWithPendingWrite(t: { teardown: (fn: () => Promise<void>) => void }, fake: FakeTransport, name: string): Promise<string> {
  const first = client(t, fake, name, { keyProvider: localKeyProvider() });
  await first.start();
  await waitForStatus(first, settled);
  fake.deliverDelta({ collection: "todos", id: "kept-on-server", method: "create", data: { title: "server copy" }, stream: STREAM });
  await eventually(() => first.store.get("todos", "kept-on-server") !== undefined);
  first.goOffline();
  const { id } = first.mutate({ collection: "todos", operation: "create", data: { title: "pending" } });
  await first.stop();
  return id;
}

test("data that does not decrypt under the device's key is wiped and synced again (the default)", async (t) => {
  const fake = createFakeTransport();
  const name = uniqueName();
  const pendingId = await storedWithPendingWrite(t, fake, name);
  await swapStoredKey(name);

  const second = client(t, fake, name, { keyProvider: localKeyProvider() });
  await second.start();
  await waitForStatus(second, (status) => settled(status) && status.streams[STREAM] === 1);
  t.is(second.getSyncStatus().persistence, "durable");
  t.is(second.store.get("todos", pendingId), undefined, "the undecryptable pending write is gone");
  t.like(second.store.get("todos", "kept-on-server"), { data: { title: "server copy" }, isPending: false });
  await second.stop();
  const raw = await rawDatabase(name);
  t.is(raw.outbox!.length, 0);
  t.is(raw.entities!.length, 1);
});

test("onDecryptFailure answering keep: the client runs from memory and the stored data is left as it was", async (t) => {
  const fake = createFakeTransport();
  const name = uniqueName();
  await storedWithPendingWrite(t, fake, name);
  await swapStoredKey(name);
  const before = asText(await rawDatabase(name));

  const calls: Array<Parameters<DecryptFailureHandler>[0]> = [];
  const second = client(t, fake, name, {
    keyProvider: localKeyProvider(),
    onDecryptFailure: (context) => {
      calls.push(context);
      return "keep";
    },
  });
  await second.start();
  t.is(calls.length, 1);
  t.like(calls[0], { name, userId: "u1" });
  await waitForStatus(second, settled);
  t.is(second.getSyncStatus().persistence, "error");
  second.mutate({ collection: "todos", operation: "create", data: { title: "in memory only" } });
  await waitForStatus(second, settled);
  await second.stop();
  t.is(asText(await rawDatabase(name)), before);
});

test("a storage read error: persistence error, the app runs from memory, and the stored data stays intact", async (t) => {
  const fake = createFakeTransport();
  const name = uniqueName();
  const pendingId = await storedWithPendingWrite(t, fake, name);
  const before = asText(await rawDatabase(name));

  const broken = client(t, fake, name, {
    keyProvider: localKeyProvider(),
    idbGetImpl: async (store) => {
      if (store === "outbox") throw new Error("simulated read failure");
      return undefined;
    },
  });
  broken.goOffline();
  await broken.start();
  t.is(broken.getSyncStatus().persistence, "error");
  t.is(broken.store.get("todos", pendingId), undefined);
  broken.mutate({ collection: "todos", operation: "create", data: { title: "not stored" } });
  await broken.stop();
  t.is(asText(await rawDatabase(name)), before, "nothing was written over the stored copy");

  const healthy = client(t, fake, name, { keyProvider: localKeyProvider() });
  healthy.goOffline();
  await healthy.start();
  t.like(healthy.getSyncStatus(), { persistence: "durable", queuedCount: 1 });
  t.like(healthy.store.get("todos", pendingId), { isPending: true, data: { title: "pending" } });
});

test("the server key provider: key material from GET /sync/key, derived once and kept on the device", async (t) => {
  const fake = createFakeTransport();
  let keyCalls = 0;
  const httpChannel = { ...fake.httpChannel, key: (token: string) => (keyCalls++, fake.httpChannel.key(token)) };
  const name = uniqueName();
  const persisterFactory = createIndexedDbPersister();
  const first = client(t, fake, name, { httpChannel, persisterFactory });
  first.goOffline();
  await first.start();
  const { id } = first.mutate({ collection: "todos", operation: "create", data: { title: "kept" } });
  await first.stop();
  t.is(keyCalls, 1);

  // Offline, a second start opens the data with the kept key: no request.
  const second = client(t, fake, name, { httpChannel, persisterFactory });
  second.goOffline();
  await second.start();
  t.is(keyCalls, 1);
  t.like(second.store.get("todos", id), { data: { title: "kept" } });
});
