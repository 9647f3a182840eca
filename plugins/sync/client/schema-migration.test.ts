import test from "ava";
import { createFakeTransport, type FakeTransport } from "../testing/index.js";
import { createMemoryPersister, createSyncDb, type SchemaMigrationInput, type SyncDb, type SyncDbOptions, type SyncPersisterFactory } from "./index.js";
import { eventually, settled, waitForStatus } from "./test-support/wait-for.js";

// A release that changes the local data's shape (schemaVersion): pending mutations survive.

const STREAM = "todos|owner:fake";
const auth = { getToken: () => "token-1", getUserId: () => "u1", onAuthChange: () => () => {} };

function client(t: { teardown: (fn: () => Promise<void>) => void }, fake: FakeTransport, persisterFactory: SyncPersisterFactory, options: Partial<SyncDbOptions> = {}): SyncDb {
  const db = createSyncDb({ name: "schema", collections: ["todos"], transport: fake.transport, httpChannel: fake.httpChannel, authProvider: auth, persisterFactory, debug: true, ...options });
  t.teardown(() => db.stop());
  return db;
}

/** Release 1: a synced entity, then two changes made offline (one new entity, one edit of the synced one). */
async function releaseOne(t: { teardown: (fn: () => Promise<void>) => void }, fake: FakeTransport, persisterFactory: SyncPersisterFactory) {
  const db = client(t, fake, persisterFactory);
  await db.start();
  await waitForStatus(db, settled);
  fake.deliverDelta({ collection: "todos", id: "synced", method: "create", data: { title: "On the server" }, stream: STREAM });
  await eventually(() => db.store.get("todos", "synced") !== undefined);
  db.goOffline();
  const created = db.mutate({ collection: "todos", operation: "create", data: { title: "Made offline" } });
  const edited = db.mutate({ collection: "todos", operation: "update", id: "synced", data: { done: true } });
  await db.stop();
  return { created, edited };
}

test("a new schemaVersion with no migrate hook re-syncs the server state and keeps every pending mutation", async (t) => {
  const fake = createFakeTransport();
  const persisterFactory = createMemoryPersister();
  const { created, edited } = await releaseOne(t, fake, persisterFactory);
  const sentBefore = fake.sent.length;

  const next = client(t, fake, persisterFactory, { schemaVersion: 2 });
  next.goOffline();
  await next.start();
  t.like(next.getSyncStatus(), { queuedCount: 2, streams: {} });
  t.like(next.debug.events.find((event) => event.type === "schema")?.detail, { from: 1, to: 2, strategy: "resync", pending: 2 });
  t.like(next.store.get("todos", created.id), { isPending: true, data: { title: "Made offline" } });

  next.goOnline();
  await waitForStatus(next, (status) => settled(status) && status.streams[STREAM] !== undefined && status.streams[STREAM] >= 1);
  t.deepEqual(fake.sent.slice(sentBefore).map((mutation) => mutation.mutationId).sort(), [created.mutationId, edited.mutationId].sort());
  t.like(next.store.get("todos", "synced"), { isPending: false, data: { title: "On the server", done: true } });

  // The marker is stored: the next start of the same release has nothing to do.
  await next.stop();
  const again = client(t, fake, persisterFactory, { schemaVersion: 2 });
  again.goOffline();
  await again.start();
  t.false(again.debug.events.some((event) => event.type === "schema"));
  t.like(again.store.get("todos", "synced"), { data: { title: "On the server", done: true } });
});

test("a migrate hook reshapes stored entities and pending mutations; a hook that throws falls back to a re-sync that keeps the outbox", async (t) => {
  const fake = createFakeTransport();
  const persisterFactory = createMemoryPersister();
  const { created } = await releaseOne(t, fake, persisterFactory);

  const inputs: SchemaMigrationInput[] = [];
  const rename = (data: Readonly<Record<string, unknown>> | undefined) => {
    if (!data || !("title" in data)) return data;
    const { title, ...rest } = data;
    return { ...rest, name: title };
  };
  const migrated = client(t, fake, persisterFactory, {
    schemaVersion: 3,
    migrate: (input) => {
      inputs.push(input);
      return {
        entities: input.entities.map((record) => ({ ...record, data: rename(record.data)! })),
        outbox: input.outbox.map((row) => ({ ...row, ...(row.data ? { data: rename(row.data)! } : {}) })),
      };
    },
  });
  migrated.goOffline();
  await migrated.start();
  t.is(inputs.length, 1);
  t.like(inputs[0], { fromVersion: 1, toVersion: 3 });
  t.is(inputs[0]!.outbox.length, 2);
  t.like(migrated.store.get("todos", created.id), { isPending: true, data: { name: "Made offline" } });
  t.like(migrated.store.get("todos", "synced"), { isPending: true, data: { name: "On the server", done: true } });
  t.is(migrated.store.get("todos", "synced")!.data.title, undefined);
  await migrated.stop();

  const broken = client(t, fake, persisterFactory, {
    schemaVersion: 4,
    migrate: () => {
      throw new Error("this release's migration has a bug");
    },
  });
  broken.goOffline();
  await broken.start();
  t.like(broken.debug.events.find((event) => event.type === "schema")?.detail, { from: 3, to: 4, strategy: "resync", pending: 2 });
  t.is(broken.getSyncStatus().queuedCount, 2);
  t.like(broken.store.get("todos", created.id), { isPending: true, data: { name: "Made offline" } });
});

test("a migrate hook answering something other than its documented shape (plain JS: nothing, null, a non-array outbox) is a failed migration: re-sync, outbox kept", async (t) => {
  const fake = createFakeTransport();
  const persisterFactory = createMemoryPersister();
  const { created } = await releaseOne(t, fake, persisterFactory);
  const answers: unknown[] = [undefined, null, { outbox: "rows" }];
  for (const [index, answer] of answers.entries()) {
    const db = client(t, fake, persisterFactory, { schemaVersion: 2 + index, migrate: (() => answer) as unknown as SyncDbOptions["migrate"] });
    db.goOffline();
    await db.start();
    t.is(db.getSyncStatus().persistence, "memory", String(answer));
    t.like(db.debug.events.find((event) => event.type === "schema")?.detail, { to: 2 + index, strategy: "resync", pending: 2 });
    t.like(db.store.get("todos", created.id), { isPending: true, data: { title: "Made offline" } });
    await db.stop();
  }
});
