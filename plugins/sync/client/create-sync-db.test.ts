import test from "ava";
import { hasErrorCode } from "../../../kernel/errors.js";
import { createFakeTransport, type FakeTransport } from "../testing/index.js";
import { createMemoryPersister, createSyncDb, listConflicts, SyncClientErrors, wipeLocalData, type PersistedChange, type SyncAuthProvider, type SyncDbOptions, type SyncPersisterFactory } from "./index.js";
import { eventually, settled, waitForStatus } from "./test-support/wait-for.js";

// The client against the fake transport of svc/sync/testing: every status field, the outbox's
// rules (ordering, blocking, retries), auth pauses, persistence. The real server is in
// sync-client-server.test.ts.

const STREAM = "todos|owner:fake";

interface Auth extends SyncAuthProvider {
  token: string | null;
  userId: string | null;
  getUserIdCalls: number;
  refreshes: number;
  fireChange(): void;
}

function fakeAuth(overrides: Partial<{ token: string | null; userId: string | null; refresh: () => Promise<boolean> }> = {}): Auth {
  const listeners = new Set<() => void>();
  const auth: Auth = {
    token: overrides.token === undefined ? "token-1" : overrides.token,
    userId: overrides.userId === undefined ? "u1" : overrides.userId,
    getUserIdCalls: 0,
    refreshes: 0,
    getToken: () => auth.token,
    getUserId: () => {
      auth.getUserIdCalls++;
      return auth.userId;
    },
    onAuthChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    fireChange: () => listeners.forEach((listener) => listener()),
  };
  if (overrides.refresh) {
    const refresh = overrides.refresh;
    auth.refresh = async () => {
      auth.refreshes++;
      return refresh();
    };
  }
  return auth;
}

function client(fake: FakeTransport, options: Partial<SyncDbOptions> = {}) {
  const auth = (options.authProvider as Auth | undefined) ?? fakeAuth();
  const db = createSyncDb({ name: "test", collections: ["todos", "notes"], transport: fake.transport, httpChannel: fake.httpChannel, startAuthRetryDelayMs: 1, ...options, authProvider: auth });
  return { db, auth };
}

/** A started client, online and settled, stopped at the end of the test. */
async function startedClient(t: { teardown: (fn: () => Promise<void>) => void }, options: Partial<SyncDbOptions> = {}) {
  const fake = createFakeTransport();
  const { db, auth } = client(fake, options);
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, settled);
  return { fake, db, auth };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("options: name, collections, authProvider and baseUrl (or both channels) are required; snapshotPageSize within the server's limit", (t) => {
  const fake = createFakeTransport();
  const auth = fakeAuth();
  for (const options of [
    { name: "", collections: ["todos"], authProvider: auth, baseUrl: "http://x" },
    { name: "n", collections: [], authProvider: auth, baseUrl: "http://x" },
    { name: "n", collections: ["todos"], authProvider: auth, transport: fake.transport },
    ...[0, 1001, 2.5, Number.NaN].map((snapshotPageSize) => ({ name: "n", collections: ["todos"], authProvider: auth, baseUrl: "http://x", snapshotPageSize })),
  ]) {
    t.true(hasErrorCode(t.throws(() => createSyncDb(options))!, SyncClientErrors.INVALID_OPTIONS.code));
  }
  t.notThrows(() => createSyncDb({ name: "n", collections: ["todos"], authProvider: auth, transport: fake.transport, httpChannel: fake.httpChannel }));
  t.notThrows(() => createSyncDb({ name: "n", collections: ["todos"], authProvider: auth, transport: fake.transport, httpChannel: fake.httpChannel, snapshotPageSize: 1000 }));
});

test("start needs a user: getUserId is retried startAuthRetryAttempts times, then NOT_AUTHENTICATED", async (t) => {
  const fake = createFakeTransport();
  const auth = fakeAuth({ userId: null });
  const { db } = client(fake, { authProvider: auth, startAuthRetryAttempts: 3 });
  const error = await t.throwsAsync(db.start());
  t.true(hasErrorCode(error, SyncClientErrors.NOT_AUTHENTICATED.code));
  t.is(auth.getUserIdCalls, 3);
  const once = fakeAuth({ userId: null });
  await t.throwsAsync(client(fake, { authProvider: once, startAuthRetryAttempts: 1 }).db.start());
  t.is(once.getUserIdCalls, 1);
  // A user who signs in between attempts is found.
  const late = fakeAuth({ userId: null });
  const lateDb = client(fake, { authProvider: late, startAuthRetryAttempts: 3 }).db;
  const starting = lateDb.start();
  late.userId = "u1";
  await t.notThrowsAsync(starting);
  await lateDb.stop();
});

test("start resolves while offline and is idempotent; mutate needs a started client", async (t) => {
  const fake = createFakeTransport();
  fake.setReachable(false);
  const { db } = client(fake);
  t.true(hasErrorCode(t.throws(() => db.mutate({ collection: "todos", operation: "create", data: { title: "x" } }))!, SyncClientErrors.NOT_STARTED.code));
  const first = db.start();
  t.is(db.start(), first);
  await first;
  await db.start();
  t.like(db.getSyncStatus(), { isOnline: false, persistence: "memory" });
  t.deepEqual(fake.tokens, ["token-1"]);
  t.teardown(() => db.stop());
});

test("mutate applies at once (pending, seq 0, minted UUIDs), sends when online, and the ack settles it", async (t) => {
  const fake = createFakeTransport();
  const { db } = client(fake);
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => status.isOnline);
  const { id, mutationId } = db.mutate({ collection: "todos", operation: "create", data: { title: "Milk" } });
  t.regex(id, UUID);
  t.regex(mutationId, UUID);
  t.deepEqual(db.store.get("todos", id), { data: { id, title: "Milk" }, deleted: false, seq: 0, isPending: true });
  await waitForStatus(db, settled);
  t.like(db.store.get("todos", id), { data: { id, title: "Milk" }, isPending: false, seq: 1 });
  db.mutate({ collection: "todos", operation: "update", id, data: { done: true } });
  db.mutate({ collection: "todos", operation: "delete", id });
  t.like(db.store.get("todos", id), { deleted: true, isPending: true, data: { done: true } });
  await waitForStatus(db, settled);
  // Each change was based on the seq of the ack before it.
  t.deepEqual(
    fake.sent.map((mutation) => [mutation.operation, mutation.baseVersion]),
    [
      ["create", undefined],
      ["update", 1],
      ["delete", 2],
    ],
  );
  t.like(db.store.get("todos", id), { deleted: true, isPending: false, seq: 3 });
  t.deepEqual(db.store.list("todos"), []);
  t.is(db.store.list("todos", { includeDeleted: true }).length, 1);
  t.true(hasErrorCode(t.throws(() => db.mutate({ collection: "other", operation: "create", data: {} }))!, SyncClientErrors.UNKNOWN_COLLECTION.code));
  t.true(hasErrorCode(t.throws(() => db.mutate({ collection: "todos", operation: "update", data: {} }))!, SyncClientErrors.INVALID_MUTATION.code));
});

test("offline: goOffline queues mutations and sends nothing; goOnline drains them in batches of batchSize", async (t) => {
  const fake = createFakeTransport();
  const { db } = client(fake, { batchSize: 4 });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => status.isOnline);
  db.goOffline();
  t.like(db.getSyncStatus(), { isOnline: false });
  const ids = Array.from({ length: 10 }, (_, index) => db.mutate({ collection: "todos", operation: "create", data: { title: `t${index}` } }).id);
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(fake.sent.length, 0);
  t.like(db.getSyncStatus(), { queuedCount: 10, collections: { todos: { queuedCount: 10, conflictCount: 0, failedCount: 0 }, notes: { queuedCount: 0, conflictCount: 0, failedCount: 0 } } });
  const drains: Array<[number, number]> = [];
  let syncing = false;
  db.onStatusChange((status) => {
    syncing ||= status.isSyncing;
    if (status.draining) drains.push([status.sentThisDrain, status.totalThisDrain]);
  });
  db.goOnline();
  const done = await waitForStatus(db, settled);
  t.deepEqual(fake.sent.map((mutation) => mutation.id), ids);
  t.like(done, { sentThisDrain: 10, totalThisDrain: 10, draining: false });
  t.deepEqual(drains.at(0), [0, 10]);
  t.true(syncing, "isSyncing while it drained");
  t.true(drains.some(([sent]) => sent === 4) && drains.some(([sent]) => sent === 8), JSON.stringify(drains));
  t.is(db.debug.stats.batchesSent, 3);
});

test("while the socket is down the outbox goes over HTTP", async (t) => {
  const fake = createFakeTransport();
  const { db } = client(fake);
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => status.isOnline);
  fake.emit({ type: "disconnected", reason: "transport close" });
  // The fake stays reachable over HTTP, as when only websockets are blocked.
  (fake.transport as { isConnected: () => boolean }).isConnected = () => false;
  db.mutate({ collection: "todos", operation: "create", data: { title: "over http" } });
  await waitForStatus(db, (status) => status.queuedCount === 0);
  t.is(fake.sent.length, 1);
});

test("a dropped network: writes wait (HTTP fails too), and the reconnection pages and replays", async (t) => {
  const { fake, db } = await startedClient(t, { random: () => 0 });
  fake.setReachable(false);
  await waitForStatus(db, (status) => !status.isOnline);
  const { id } = db.mutate({ collection: "todos", operation: "create", data: { title: "during the outage" } });
  fake.putEntity(STREAM, "todos", { id: "remote", data: { id: "remote", title: "R" }, deleted: false });
  await eventually(() => db.debug.stats.retries >= 1);
  t.like(db.store.get("todos", id), { isPending: true });
  fake.setReachable(true);
  await waitForStatus(db, (status) => settled(status) && db.store.get("todos", "remote") !== undefined);
  t.like(db.store.get("todos", id), { isPending: false });
});

test("the server closing the connection: the client connects again by itself", async (t) => {
  const { fake, db } = await startedClient(t);
  fake.dropConnection();
  await waitForStatus(db, (status) => !status.isOnline);
  await waitForStatus(db, (status) => status.isOnline);
  t.is(fake.tokens.length, 2);
});

test("deltas in seq order move the cursor; a seq jump pages the stream, at most once per seqJumpReconcileMinIntervalMs", async (t) => {
  const fake = createFakeTransport();
  let clock = 1_000_000;
  const { db } = client(fake, { now: () => clock, seqJumpReconcileMinIntervalMs: 60_000, debug: true });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => status.isOnline && status.streams[STREAM] === 0 && !status.isSyncing);
  fake.deliverDelta({ collection: "todos", id: "a", method: "create", data: { title: "A" }, stream: STREAM });
  await waitForStatus(db, (status) => status.streams[STREAM] === 1);
  t.like(db.store.get("todos", "a"), { data: { id: "a", title: "A" }, seq: 1, isPending: false });
  // Seq 2 and 3 are written without a delta (missed); 4 arrives: a jump.
  fake.putEntity(STREAM, "todos", { id: "b", data: { id: "b", title: "B" }, deleted: false });
  fake.putEntity(STREAM, "todos", { id: "c", data: { id: "c", title: "C" }, deleted: false });
  fake.deliverDelta({ collection: "todos", id: "d", method: "create", data: { title: "D" }, stream: STREAM });
  await waitForStatus(db, (status) => status.streams[STREAM] === 4);
  t.deepEqual(db.store.ids("todos"), ["a", "b", "c", "d"]);
  const pagesAfterFirstJump = db.debug.stats.snapshotPages;
  // A second jump inside the interval waits for it (the clock does not move: no page yet).
  fake.putEntity(STREAM, "todos", { id: "e", data: { id: "e", title: "E" }, deleted: false });
  fake.deliverDelta({ collection: "todos", id: "f", method: "create", data: { title: "F" }, stream: STREAM });
  await eventually(() => db.store.get("todos", "f") !== undefined);
  await new Promise((resolve) => setTimeout(resolve, 30));
  t.is(db.debug.stats.snapshotPages, pagesAfterFirstJump);
  t.is(db.getSyncStatus().streams[STREAM], 4);
  t.is(db.store.get("todos", "e"), undefined);
  // An explicit reconcile pages it.
  clock += 1;
  await db.reconcile();
  t.is(db.getSyncStatus().streams[STREAM], 6);
  t.truthy(db.store.get("todos", "e"));
  t.true(db.debug.events.some((event) => event.type === "seq-jump-reconcile"));
  t.false(JSON.stringify(db.debug.events).includes('"title"'), "no entity data in debug events by default");
});

test("deltas arriving together are one step: listeners hear once, the cursor moves once, and out-of-order seqs inside the burst are no gap", async (t) => {
  const fake = createFakeTransport();
  const { db } = client(fake, { debug: true });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => status.isOnline && status.streams[STREAM] === 0 && !status.isSyncing);
  const pagesBefore = db.debug.stats.snapshotPages;
  let heard = 0;
  const stop = db.store.subscribe(() => heard++);
  // One socket read's worth, seqs 2 and 1 swapped: applied together, no seq jump is seen.
  const delta = (id: string, seq: number) => ({ type: "delta" as const, delta: { collection: "todos", id, method: "create" as const, data: { id, title: id.toUpperCase() }, seq, stream: STREAM } });
  for (const event of [delta("b", 2), delta("a", 1), delta("c", 3)]) fake.emit(event);
  await waitForStatus(db, (status) => status.streams[STREAM] === 3);
  stop();
  t.is(heard, 1);
  t.deepEqual(db.store.ids("todos"), ["a", "b", "c"]);
  t.is(db.debug.stats.deltasApplied, 3);
  t.is(db.debug.stats.snapshotPages, pagesBefore);
  t.false(db.debug.events.some((event) => event.type === "seq-jump-reconcile"));
  // A gap left at the end of a burst still pages the stream.
  fake.putEntity(STREAM, "todos", { id: "d", data: { id: "d", title: "D" }, deleted: false, seq: 4 });
  fake.emit(delta("e", 5));
  await waitForStatus(db, (status) => status.streams[STREAM] === 5);
  t.truthy(db.store.get("todos", "d"));
});

test("whenPersisted resolves once the mutation's outbox row is stored, not before", async (t) => {
  const fake = createFakeTransport();
  const memory = createMemoryPersister();
  let release: () => void = () => {};
  let holding = false;
  const slow: SyncPersisterFactory = async (context) => {
    const inner = await memory(context);
    return {
      ...inner,
      write: async (changes) => {
        if (holding) await new Promise<void>((resolve) => (release = resolve));
        await inner.write(changes);
      },
    };
  };
  const { db } = client(fake, { persisterFactory: slow });
  await db.start();
  t.teardown(() => db.stop());
  await db.whenPersisted();
  db.goOffline(); // the row stays in the outbox (no ack removes it)
  holding = true;
  const { mutationId } = db.mutate({ collection: "todos", operation: "create", data: { title: "Milk" } });
  let persisted = false;
  const waiting = db.whenPersisted().then(() => (persisted = true));
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  t.false(persisted, "the write is still in progress");
  const stored = async () => (await (await memory({ name: "test", userId: "u1" })).load())._outbox.map((row) => row.mutationId);
  t.deepEqual(await stored(), []);
  holding = false;
  release();
  await waiting;
  t.deepEqual(await stored(), [mutationId]);
  t.is(db.getSyncStatus().persistence, "memory");
});

test("the persister gets each changed record once, with its last value, in one write per burst", async (t) => {
  const fake = createFakeTransport();
  const memory = createMemoryPersister();
  const writes: PersistedChange[][] = [];
  const recording: SyncPersisterFactory = async (context) => {
    const inner = await memory(context);
    return { ...inner, write: (changes) => (writes.push([...changes]), inner.write(changes)) };
  };
  const { db } = client(fake, { persisterFactory: recording });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => status.isOnline && status.streams[STREAM] === 0 && !status.isSyncing);
  await eventually(() => writes.length > 0);
  writes.length = 0;
  // One burst: "a" three times (created, renamed, deleted), "b" once.
  const delta = (id: string, seq: number, title: string, method: "create" | "update" | "delete" = "update") => ({ type: "delta" as const, delta: { collection: "todos", id, method, data: { id, title }, seq, stream: STREAM } });
  for (const event of [delta("a", 1, "A", "create"), delta("b", 2, "B", "create"), delta("a", 3, "A2"), delta("a", 4, "A3", "delete")]) fake.emit(event);
  await waitForStatus(db, (status) => status.streams[STREAM] === 4);
  await eventually(() => writes.length > 0);
  t.is(writes.length, 1, "the burst is one write");
  const entities = writes[0]!.filter((change) => change.table === "entities");
  t.deepEqual(
    entities.map((change) => [change.key, change.value?.seq, change.value?.deleted]).sort(),
    [
      ["todos/a", 4, true],
      ["todos/b", 2, false],
    ],
  );
  t.deepEqual(writes[0]!.filter((change) => change.table === "_cursors").map((change) => [change.key, change.value?.cursor]), [[STREAM, 4]]);
});

test("sync:reconcile from the server pages every stream", async (t) => {
  const fake = createFakeTransport();
  const { db } = client(fake);
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => status.isOnline && status.streams[STREAM] === 0 && !status.isSyncing);
  fake.putEntity(STREAM, "todos", { id: "missed", data: { id: "missed", title: "M" }, deleted: false });
  fake.emit({ type: "reconcile", reason: "history-lost" });
  await eventually(() => db.store.get("todos", "missed") !== undefined);
  t.pass();
});

test("the reconcile timer pages every stream every reconcileIntervalMs", async (t) => {
  const { fake, db } = await startedClient(t, { reconcileIntervalMs: 20 });
  fake.putEntity(STREAM, "todos", { id: "timer", data: { id: "timer", title: "T" }, deleted: false });
  await eventually(() => db.store.get("todos", "timer") !== undefined);
  t.true(db.debug.stats.reconciles >= 1);
});

test("a conflict blocks only its entity; resolveConflict useServer takes the server's entity and drops the change", async (t) => {
  const { fake, db } = await startedClient(t);
  fake.deliverDelta({ collection: "todos", id: "x", method: "create", data: { title: "Server" }, stream: STREAM });
  await eventually(() => db.store.get("todos", "x")?.seq === 1);
  db.goOffline();
  const first = db.mutate({ collection: "todos", operation: "update", id: "x", data: { title: "Mine" } });
  db.mutate({ collection: "todos", operation: "update", id: "x", data: { done: true } });
  const other = db.mutate({ collection: "todos", operation: "create", data: { title: "Other" } });
  fake.queueNack({ code: "conflict", serverDoc: { id: "x", title: "Theirs" }, serverSeq: 5, serverDeleted: false });
  db.goOnline();
  const status = await waitForStatus(db, (current) => current.conflictCount === 1 && current.queuedCount === 2);
  t.like(status, { blockedEntities: 1, failedCount: 0, collections: { todos: { queuedCount: 2, conflictCount: 1, failedCount: 0 } } });
  // The other entity went through; the blocked entity's second change was never sent.
  t.deepEqual(fake.sent.map((mutation) => mutation.id), ["x", other.id]);
  t.like(db.store.get("todos", "x"), { data: { title: "Mine", done: true }, isPending: true, seq: 5 });
  const [conflict] = listConflicts({ store: db.store });
  t.like(conflict, { mutationId: first.mutationId, code: "conflict", entityId: "x", serverSeq: 5, serverDoc: { title: "Theirs" }, data: { title: "Mine" } });
  await db.resolveConflict({ mutationId: first.mutationId, strategy: "useServer" });
  t.deepEqual(db.store.get("todos", "x"), { data: { id: "x", title: "Theirs" }, deleted: false, seq: 5, isPending: false });
  t.like(db.getSyncStatus(), { conflictCount: 0, queuedCount: 0, blockedEntities: 0 });
  const error = await t.throwsAsync(db.resolveConflict({ mutationId: first.mutationId, strategy: "useServer" }));
  t.true(hasErrorCode(error, SyncClientErrors.UNKNOWN_CONFLICT.code));
});

test("resolveConflict with an unknown strategy throws and changes nothing (it never falls through to useServer)", async (t) => {
  const { fake, db } = await startedClient(t);
  fake.queueNack({ code: "validation", message: "title: too long" });
  const refused = db.mutate({ collection: "todos", operation: "create", data: { title: "mine" } });
  await waitForStatus(db, (status) => status.failedCount === 1 && !status.isSyncing);
  const error = await t.throwsAsync(db.resolveConflict({ mutationId: refused.mutationId, strategy: "keep-mine" as "keepMine" }));
  t.true(hasErrorCode(error, SyncClientErrors.UNKNOWN_STRATEGY.code), String(error));
  t.like(db.store.get("todos", refused.id), { data: { title: "mine" }, isPending: true });
  t.is(listConflicts({ store: db.store }).length, 1);
});

test("useServer keeps a server state newer than the conflict's (deltas that came in since)", async (t) => {
  const { fake, db } = await startedClient(t);
  fake.deliverDelta({ collection: "todos", id: "n", method: "create", data: { title: "v1" }, stream: STREAM });
  await eventually(() => db.store.get("todos", "n")?.seq === 1);
  fake.putEntity(STREAM, "todos", { id: "n", data: { id: "n", title: "v2" }, deleted: false });
  fake.queueNack({ code: "conflict", serverDoc: { id: "n", title: "v2" }, serverSeq: 2 });
  const mine = db.mutate({ collection: "todos", operation: "update", id: "n", data: { title: "mine" } });
  await waitForStatus(db, (status) => status.conflictCount === 1);
  fake.deliverDelta({ collection: "todos", id: "n", method: "update", data: { title: "v3" }, stream: STREAM });
  await eventually(() => db.store.get("todos", "n")?.seq === 3);
  await db.resolveConflict({ mutationId: mine.mutationId, strategy: "useServer" });
  t.like(db.store.get("todos", "n"), { data: { title: "v3" }, seq: 3, isPending: false });
});

test("keepMine re-sends the change under a new mutationId over the server's seq, and the entity's later changes follow", async (t) => {
  const { fake, db } = await startedClient(t);
  fake.deliverDelta({ collection: "todos", id: "y", method: "create", data: { title: "Server" }, stream: STREAM });
  await eventually(() => db.store.get("todos", "y")?.seq === 1);
  // Another device wrote seq 7 (no delta reached this one).
  fake.putEntity(STREAM, "todos", { id: "y", data: { id: "y", title: "Theirs" }, deleted: false, seq: 7 });
  fake.queueNack({ code: "conflict", serverDoc: { id: "y", title: "Theirs" }, serverSeq: 7 });
  const first = db.mutate({ collection: "todos", operation: "update", id: "y", data: { title: "Mine" } });
  db.mutate({ collection: "todos", operation: "update", id: "y", data: { done: true } });
  await waitForStatus(db, (status) => status.conflictCount === 1);
  await db.resolveConflict({ mutationId: first.mutationId, strategy: "keepMine" });
  await waitForStatus(db, settled);
  const resent = fake.sent.at(-2)!;
  t.not(resent.mutationId, first.mutationId);
  t.like(resent, { operation: "update", baseVersion: 7, data: { title: "Mine" } });
  // The later change is based on the seq the re-sent one was acked with.
  const final = db.store.get("todos", "y")!;
  t.like(fake.sent.at(-1), { baseVersion: final.seq - 1, data: { done: true } });
  t.like(final, { data: { title: "Mine", done: true }, isPending: false });
});

test("haltQueueOnConflict: one conflict halts every entity's sending until it is resolved", async (t) => {
  const { fake, db } = await startedClient(t, { haltQueueOnConflict: true });
  fake.queueNack({ code: "conflict", serverSeq: 3, serverDoc: { id: "z", title: "Theirs" } });
  const first = db.mutate({ collection: "todos", operation: "update", id: "z", data: { title: "Mine" } });
  await waitForStatus(db, (status) => status.conflictCount === 1);
  db.mutate({ collection: "todos", operation: "create", data: { title: "Unrelated" } });
  await db.replayOutbox();
  t.is(fake.sent.length, 1);
  t.like(db.getSyncStatus(), { queuedCount: 2, blockedEntities: 1 });
  await db.resolveConflict({ mutationId: first.mutationId, strategy: "useServer" });
  await waitForStatus(db, settled);
  t.is(fake.sent.length, 2);
});

test("a terminal refusal fails its row and blocks the entity's successors until retryFailed; the rest of the queue goes on", async (t) => {
  const { fake, db } = await startedClient(t);
  db.goOffline();
  const bad = db.mutate({ collection: "todos", operation: "create", data: { title: "" } });
  db.mutate({ collection: "todos", operation: "update", id: bad.id, data: { title: "fixed" } });
  const good = db.mutate({ collection: "notes", operation: "create", data: { text: "fine" } });
  fake.queueNack({ code: "validation", message: "title: required" });
  db.goOnline();
  const status = await waitForStatus(db, (current) => current.failedCount === 1 && current.queuedCount === 2);
  t.like(status, { blockedEntities: 1, conflictCount: 0, collections: { todos: { failedCount: 1, queuedCount: 2, conflictCount: 0 } } });
  t.like(db.store.get("notes", good.id), { isPending: false });
  t.like(listConflicts({ store: db.store })[0], { code: "validation", message: "title: required", entityId: bad.id });
  t.is(fake.sent.filter((mutation) => mutation.id === bad.id).length, 1);
  t.is(await db.retryFailed({ entityId: bad.id }), 1);
  await waitForStatus(db, settled);
  t.deepEqual(fake.sent.filter((mutation) => mutation.id === bad.id).map((mutation) => mutation.operation), ["create", "create", "update"]);
  t.is(listConflicts({ store: db.store }).length, 0);
});

test("network failures and server errors keep the writes and retry; a server error on one entity does not hold up the others", async (t) => {
  const { fake, db } = await startedClient(t, { random: () => 0 });
  db.goOffline();
  const failing = db.mutate({ collection: "todos", operation: "create", data: { title: "hook fails" } });
  const others = [1, 2, 3].map((n) => db.mutate({ collection: "todos", operation: "create", data: { title: `ok ${n}` } }));
  fake.queueResponses("drop", { nack: { code: "error" } });
  db.goOnline();
  await waitForStatus(db, settled);
  const sends = fake.sent.map((mutation) => mutation.id);
  t.is(sends.filter((id) => id === failing.id).length, 3, JSON.stringify(sends));
  for (const other of others) t.like(db.store.get("todos", other.id), { isPending: false });
  t.like(db.store.get("todos", failing.id), { isPending: false });
  t.true(db.debug.stats.retries >= 2);
});

test("maxAttempts: 1 attempt fails at the first retryable failure, N after N, omitted retries until it goes through; it survives a restart", async (t) => {
  const persisterFactory = createMemoryPersister();
  const { fake, db } = await startedClient(t, { persisterFactory });
  const sendsOf = (id: string) => fake.sent.filter((mutation) => mutation.id === id).length;

  // One attempt: a single server error fails it like a terminal refusal, blocking the entity's successors.
  fake.queueResponses({ nack: { code: "error" } });
  const once = db.mutate({ collection: "todos", operation: "create", data: { title: "once" }, maxAttempts: 1 });
  db.mutate({ collection: "todos", operation: "update", id: once.id, data: { title: "after" } });
  const failed = await waitForStatus(db, (status) => status.failedCount === 1 && !status.isSyncing);
  t.like(failed, { blockedEntities: 1, queuedCount: 2 });
  t.is(sendsOf(once.id), 1);
  t.like(db.outbox.list()[0], { mutationId: once.mutationId, status: "failed", attempts: 1, maxAttempts: 1 });
  t.like(listConflicts({ store: db.store })[0], { mutationId: once.mutationId, code: "error", entityId: once.id });
  t.is(await db.retryFailed({ entityId: once.id }), 1);
  await waitForStatus(db, settled);
  t.is(sendsOf(once.id), 3, "the retried create, then its successor");

  // Three attempts, counting network drops and server errors alike.
  fake.queueResponses("drop", { nack: { code: "error" } }, "drop");
  const thrice = db.mutate({ collection: "todos", operation: "create", data: { title: "thrice" }, maxAttempts: 3 });
  await waitForStatus(db, (status) => status.failedCount === 1 && !status.isSyncing);
  t.is(sendsOf(thrice.id), 3);
  t.like(db.outbox.list()[0], { status: "failed", attempts: 3 });

  // Omitted: the same three failures, then the fourth send goes through.
  fake.queueResponses("drop", { nack: { code: "error" } }, "drop");
  const unlimited = db.mutate({ collection: "notes", operation: "create", data: { text: "keeps trying" } });
  await eventually(() => db.store.get("notes", unlimited.id)?.isPending === false, () => JSON.stringify(db.getSyncStatus()));
  t.is(sendsOf(unlimited.id), 4);
  t.is(db.getSyncStatus().failedCount, 1);

  // The limit is stored with the row: a restarted client still enforces it.
  db.goOffline();
  const later = db.mutate({ collection: "notes", operation: "create", data: { text: "limited" }, maxAttempts: 2 });
  await db.stop();
  const restarted = client(fake, { persisterFactory }).db;
  restarted.goOffline();
  await restarted.start();
  t.teardown(() => restarted.stop());
  t.like(restarted.outbox.list().find((row) => row.mutationId === later.mutationId), { maxAttempts: 2, status: "queued" });
  fake.queueResponses({ nack: { code: "error" } }, { nack: { code: "error" } });
  restarted.goOnline();
  await waitForStatus(restarted, (status) => status.failedCount === 2 && !status.isSyncing);
  t.is(sendsOf(later.id), 2);
});

test("a mutation queued while a failing send is in flight waits out the backoff: retries never go back to back", async (t) => {
  const events: string[] = [];
  // The first backoff is 250–500 ms, far longer than the event-loop turns waited below.
  const { fake, db } = await startedClient(t, { debug: { log: (event) => void events.push(event.type) } });
  fake.queueResponses(...Array.from({ length: 9 }, () => "drop" as const));
  const first = db.mutate({ collection: "todos", operation: "create", data: { title: "first" }, maxAttempts: 2 });
  // Both queued while the first send is in flight: they ask for another drain.
  db.mutate({ collection: "todos", operation: "create", data: { title: "second" } });
  db.mutate({ collection: "todos", operation: "create", data: { title: "third" } });
  await eventually(() => events.includes("retry-scheduled"));
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  // Before the fix the drain asked for meanwhile sent again at once and used up maxAttempts.
  t.is(fake.sent.filter((mutation) => mutation.id === first.id).length, 1, events.join(" "));
  t.like(db.outbox.list().find((row) => row.mutationId === first.mutationId), { status: "queued", attempts: 1 });
  await waitForStatus(db, (status) => status.failedCount === 1 && !status.isSyncing);
  t.is(fake.sent.filter((mutation) => mutation.id === first.id).length, 2);
});

test("maxAttempts must be a whole number of at least 1", async (t) => {
  const { db } = await startedClient(t);
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    const error = t.throws(() => db.mutate({ collection: "todos", operation: "create", data: { title: "x" }, maxAttempts: bad }));
    t.true(hasErrorCode(error!, SyncClientErrors.INVALID_MUTATION.code));
  }
  t.is(db.outbox.count(), 0);
});

test("rate_limited waits retryAfterMs and sends the rest again", async (t) => {
  const { fake, db } = await startedClient(t);
  db.goOffline();
  for (const n of [1, 2, 3]) db.mutate({ collection: "todos", operation: "create", data: { title: `t${n}` } });
  fake.queueResponses({ ack: {} }, { nack: { code: "rate_limited", retryAfterMs: 20 } });
  db.goOnline();
  await waitForStatus(db, settled);
  t.is(fake.sent.length, 4);
  t.is(db.getSyncStatus().failedCount, 0);
});

test("auth: sync:auth-expired pauses replay, onAuthRequired fires once per episode, refresh resumes and the queue drains", async (t) => {
  const fake = createFakeTransport();
  let required = 0;
  let allowRefresh = false;
  const auth = fakeAuth({ refresh: async () => allowRefresh && ((auth.token = "token-2"), true) });
  fake.acceptTokens((token) => token === "token-1" || token === "token-2");
  const { db } = client(fake, { authProvider: auth, onAuthRequired: () => required++ });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, settled);
  fake.acceptTokens((token) => token === "token-2");
  fake.expireAuth();
  await waitForStatus(db, (status) => status.paused === "auth");
  t.like(db.getSyncStatus(), { paused: "auth", isOnline: false });
  const queued = db.mutate({ collection: "todos", operation: "create", data: { title: "while paused" } });
  fake.expireAuth();
  fake.emit({ type: "connect-error", unauthorized: true, message: "401" });
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(required, 1);
  t.is(auth.refreshes, 1);
  t.like(db.store.get("todos", queued.id), { isPending: true });
  // The app signs in again: onAuthChange resumes with the new token.
  allowRefresh = true;
  auth.token = "token-2";
  auth.fireChange();
  const status = await waitForStatus(db, settled);
  t.is(status.paused, undefined);
  t.is(fake.tokens.at(-1), "token-2");
  t.like(db.store.get("todos", queued.id), { isPending: false });
  // A new episode calls onAuthRequired again, and its refresh resumes by itself.
  fake.acceptTokens((token) => token === "token-2" || token === "token-3");
  auth.refresh = async () => ((auth.token = "token-3"), true);
  fake.expireAuth();
  await waitForStatus(db, (current) => current.paused === "auth");
  await waitForStatus(db, (current) => !current.paused && current.isOnline);
  t.is(required, 2);
});

test("an HTTP 401 pauses too, and writes queued while the token expired offline drain after the refresh", async (t) => {
  const fake = createFakeTransport();
  let required = 0;
  const auth = fakeAuth({ refresh: async () => ((auth.token = "fresh"), true) });
  const { db } = client(fake, { authProvider: auth, onAuthRequired: () => required++ });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, settled);
  db.goOffline();
  const ids = [1, 2, 3].map((n) => db.mutate({ collection: "todos", operation: "create", data: { title: `offline ${n}` } }).id);
  // The token expired while offline: the server now only takes the refreshed one.
  fake.acceptTokens((token) => token === "fresh");
  db.goOnline();
  await waitForStatus(db, (status) => settled(status) && !status.paused);
  t.is(required, 1);
  t.deepEqual(fake.sent.map((mutation) => mutation.id), ids);
});

test("tombstones are kept tombstoneRetentionMs (by the injected clock), then purged on reconcile", async (t) => {
  const fake = createFakeTransport();
  let clock = 0;
  const { db } = client(fake, { now: () => clock, tombstoneRetentionMs: 1_000 });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, settled);
  fake.deliverDelta({ collection: "todos", id: "gone", method: "create", data: { title: "G" }, stream: STREAM });
  fake.deliverDelta({ collection: "todos", id: "gone", method: "delete", data: { title: "G" }, deleted: true, stream: STREAM });
  await eventually(() => db.store.get("todos", "gone")?.deleted === true);
  clock = 999;
  await db.reconcile();
  t.truthy(db.store.get("todos", "gone"));
  clock = 1_000;
  await db.reconcile();
  t.is(db.store.get("todos", "gone"), undefined);
});

test("the outbox, cursors and conflicts survive a restart through the persister; a persister that cannot load reports persistence error", async (t) => {
  const fake = createFakeTransport();
  const persisterFactory = createMemoryPersister();
  const first = client(fake, { persisterFactory }).db;
  await first.start();
  await waitForStatus(first, settled);
  first.goOffline();
  const queued = first.mutate({ collection: "todos", operation: "create", data: { title: "survives" } });
  await first.stop();
  const second = client(fake, { persisterFactory }).db;
  second.goOffline();
  await second.start();
  t.teardown(() => second.stop());
  t.like(second.store.get("todos", queued.id), { isPending: true, data: { title: "survives" } });
  t.is(second.outbox.list()[0]!.mutationId, queued.mutationId);
  t.like(second.getSyncStatus(), { queuedCount: 1, persistence: "memory", streams: { [STREAM]: 0 } });
  second.goOnline();
  await waitForStatus(second, settled);
  t.is(fake.sent.filter((mutation) => mutation.mutationId === queued.mutationId).length, 1);

  const writes: unknown[] = [];
  const broken: SyncPersisterFactory = () => ({
    kind: "durable",
    load: async () => {
      throw new Error("disk on fire");
    },
    write: async (changes) => void writes.push(changes),
    clear: async () => undefined,
  });
  const third = client(createFakeTransport(), { persisterFactory: broken }).db;
  await third.start();
  t.teardown(() => third.stop());
  t.is(third.getSyncStatus().persistence, "error");
  third.mutate({ collection: "todos", operation: "create", data: { title: "memory only" } });
  await new Promise((resolve) => setTimeout(resolve, 10));
  t.deepEqual(writes, [], "nothing is written over a store that could not be read");
});

test("signOut stops and forgets; with wipeOnSignOut the stored copy goes too; wipeLocalData empties a running client", async (t) => {
  const fake = createFakeTransport();
  const persisterFactory = createMemoryPersister();
  const keep = client(fake, { persisterFactory }).db;
  await keep.start();
  keep.goOffline();
  keep.mutate({ collection: "todos", operation: "create", data: { title: "kept" } });
  await keep.signOut();
  t.is(keep.outbox.count(), 0);
  t.true(hasErrorCode(t.throws(() => keep.mutate({ collection: "todos", operation: "create", data: {} }))!, SyncClientErrors.NOT_STARTED.code));
  keep.goOffline();
  await keep.start();
  t.is(keep.outbox.count(), 1, "the stored copy was kept");
  keep.goOnline();
  await waitForStatus(keep, settled);
  keep.goOffline();
  keep.mutate({ collection: "todos", operation: "create", data: { title: "wiped" } });
  await keep.stop();

  const wiping = client(fake, { persisterFactory, wipeOnSignOut: true }).db;
  wiping.goOffline();
  await wiping.start();
  t.is(wiping.outbox.count(), 1);
  await wiping.signOut();
  await wiping.start();
  t.is(wiping.outbox.count(), 0);
  t.deepEqual(wiping.getSyncStatus().streams, {});
  wiping.mutate({ collection: "todos", operation: "create", data: { title: "x" } });
  await wipeLocalData(wiping);
  t.is(wiping.outbox.count(), 0);
  t.deepEqual(wiping.store.list("todos"), []);
  await wiping.stop();
});

test("an answer to a mutation wiped while in flight does not bring it back", async (t) => {
  const { fake, db } = await startedClient(t);
  const send = fake.transport.mutateBatch.bind(fake.transport);
  let release: (() => void) | undefined;
  fake.transport.mutateBatch = async (mutations, batchId) => {
    await new Promise<void>((resolve) => (release = resolve));
    return send(mutations, batchId);
  };
  fake.queueNack({ code: "validation" });
  const { id } = db.mutate({ collection: "todos", operation: "create", data: { title: "in flight" } });
  await eventually(() => release !== undefined);
  await wipeLocalData(db);
  release!();
  await waitForStatus(db, (status) => !status.draining);
  t.is(db.outbox.count(), 0);
  t.is(db.store.get("todos", id), undefined);
  t.deepEqual(listConflicts({ store: db.store }), []);
});

test("store reads: stable objects, per-entity and per-collection listeners, live queries for useSyncExternalStore", async (t) => {
  const fake = createFakeTransport();
  const { db } = client(fake);
  db.goOffline();
  await db.start();
  t.teardown(() => db.stop());
  const a = db.mutate({ collection: "todos", operation: "create", id: "a", data: { title: "B title", rank: 2 } });
  db.mutate({ collection: "todos", operation: "create", id: "b", data: { title: "A title", rank: 1, done: true } });
  const read = db.store.get("todos", a.id);
  t.is(db.store.get("todos", a.id), read, "same object until it changes");
  let entityCalls = 0;
  let collectionCalls = 0;
  db.store.subscribeEntity("todos", "a", () => entityCalls++);
  db.store.subscribeCollection("todos", () => collectionCalls++);
  const ids = db.store.watchIds("todos", { sort: "rank" });
  const open = db.store.watch("todos", { filter: { done: undefined } });
  const idsBefore = ids.getSnapshot();
  t.deepEqual(idsBefore, ["b", "a"]);
  t.is(open.getSnapshot(), open.getSnapshot());
  db.mutate({ collection: "todos", operation: "update", id: "b", data: { title: "renamed" } });
  t.is(entityCalls, 0);
  t.is(collectionCalls, 1);
  t.is(ids.getSnapshot(), idsBefore, "ids unchanged: same array");
  db.mutate({ collection: "todos", operation: "update", id: "a", data: { rank: 0 } });
  t.is(entityCalls, 1);
  t.deepEqual(ids.getSnapshot(), ["a", "b"]);
  t.deepEqual(db.store.list("todos", { sort: "-title" }).map((entry) => entry.data.id), ["b", "a"]);
  t.deepEqual(open.getSnapshot().map((entry) => entry.data.id), ["a"]);
  t.deepEqual(db.store.ids("todos", { filter: (data) => data.rank === 1 }), ["b"]);
});

test("forceResync pages every stream from 0: repairs what differs, purges what the server no longer has, keeps pending changes", async (t) => {
  const fake = createFakeTransport();
  const { db } = client(fake);
  t.like(await db.forceResync(), { ok: false, reason: "not-started" });
  fake.putEntity(STREAM, "todos", { id: "kept", data: { id: "kept", title: "K" }, deleted: false });
  await db.start();
  t.teardown(() => db.stop());
  db.goOffline();
  t.like(await db.forceResync(), { ok: false, reason: "offline" });
  db.goOnline();
  await waitForStatus(db, (status) => settled(status) && status.streams[STREAM] === 1);
  // A local entity the server never had (as after a lost tombstone), and a pending one.
  fake.emit({ type: "delta", delta: { collection: "todos", id: "ghost", method: "create", data: { id: "ghost" }, seq: 1, stream: STREAM, frontierSeq: 1 } });
  await eventually(() => db.store.get("todos", "ghost") !== undefined);
  db.goOffline();
  const pending = db.mutate({ collection: "todos", operation: "create", data: { title: "pending" } });
  db.goOnline();
  fake.putEntity(STREAM, "todos", { id: "kept", data: { id: "kept", title: "K2" }, deleted: false });
  await waitForStatus(db, (status) => status.isOnline);
  db.goOffline();
  db.goOnline();
  await waitForStatus(db, settled);
  const result = await db.forceResync();
  t.like(result, { ok: true, streams: 2 });
  t.true(result.purged >= 1);
  t.is(db.store.get("todos", "ghost"), undefined);
  t.like(db.store.get("todos", "kept"), { data: { title: "K2" } });
  t.truthy(db.store.get("todos", pending.id));
});

test("overlapping forceResync calls each keep what deltas changed while they paged: the first to end does not clear the other's record", async (t) => {
  const fake = createFakeTransport();
  // Snapshot pages are read when asked for and answered when released: a page predates the deltas in between.
  const held: Array<() => void> = [];
  const holding = { on: false };
  const httpChannel = {
    ...fake.httpChannel,
    async snapshot(query: Parameters<typeof fake.httpChannel.snapshot>[0], token: string) {
      const page = await fake.httpChannel.snapshot(query, token);
      if (holding.on && query.stream === STREAM) await new Promise<void>((release) => held.push(release));
      return page;
    },
  };
  fake.putEntity(STREAM, "todos", { id: "kept", data: { id: "kept", title: "K" }, deleted: false });
  const { db } = client(fake, { httpChannel });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => settled(status) && status.streams[STREAM] === 1);
  holding.on = true;
  const first = db.forceResync();
  await eventually(() => held.length === 1);
  const second = db.forceResync();
  await eventually(() => held.length === 2);
  held.shift()!();
  t.like(await first, { ok: true });
  // Created while the second call's page (read before it) is still on its way.
  fake.deliverDelta({ collection: "todos", id: "fresh", method: "create", data: { title: "F" }, stream: STREAM });
  await eventually(() => db.store.get("todos", "fresh") !== undefined);
  holding.on = false;
  held.shift()!();
  t.like(await second, { ok: true, purged: 0 });
  t.like(db.store.get("todos", "fresh"), { data: { title: "F" } }, "not purged as a ghost");
});

test("debug: events only when enabled, with data only when asked; stats always count", async (t) => {
  const fake = createFakeTransport();
  const quiet = client(fake).db;
  await quiet.start();
  t.teardown(() => quiet.stop());
  await waitForStatus(quiet, settled);
  quiet.mutate({ collection: "todos", operation: "create", data: { title: "secret" } });
  await waitForStatus(quiet, settled);
  t.false(quiet.debug.enabled);
  t.deepEqual(quiet.debug.events, []);
  t.is(quiet.debug.stats.acks, 1);
  const logged: string[] = [];
  const loud = client(createFakeTransport(), { debug: { includeData: true, maxEvents: 5, log: (event) => logged.push(event.type) } }).db;
  await loud.start();
  t.teardown(() => loud.stop());
  await waitForStatus(loud, settled);
  loud.mutate({ collection: "todos", operation: "create", data: { title: "visible" } });
  await waitForStatus(loud, settled);
  t.true(loud.debug.events.length <= 5);
  t.true(logged.includes("mutate"));
  t.true(JSON.stringify(loud.debug.events).includes("visible"));
  loud.debug.clear();
  t.is(loud.debug.stats.acks, 0);
});

test("the fake-transport example of docs/sync-client.md does what it says", async (t) => {
  const fake = createFakeTransport({ streams: { todos: ["todos|owner:u1"] } });
  const db = createSyncDb({
    name: "test",
    collections: ["todos"],
    transport: fake.transport,
    httpChannel: fake.httpChannel,
    authProvider: { getToken: () => "token", getUserId: () => "u1", onAuthChange: () => () => {} },
  });
  await db.start();
  t.teardown(() => db.stop());

  fake.deliverDelta({ collection: "todos", id: "t1", method: "create", data: { title: "Milk" }, stream: "todos|owner:u1" });
  fake.queueNack({ code: "conflict", serverDoc: { id: "t1", title: "Oat milk" }, serverSeq: 2 });
  db.mutate({ collection: "todos", operation: "update", id: "t1", data: { title: "Soy milk" } });
  await db.replayOutbox();

  t.is(fake.sent.length, 1);
  t.is(db.getSyncStatus().conflictCount, 1);
});

test("sorting by a field of mixed types is one order whatever order the entities arrived in: missing, booleans, numbers, strings", async (t) => {
  const ranks: Array<[string, unknown]> = [["n", null], ["u", undefined], ["b", true], ["f", false], ["two", 2], ["ten", 10], ["s", "a"], ["z", "Z"], ["o", { x: 1 }]];
  const orders: string[][] = [];
  for (const arrival of [ranks, [...ranks].reverse()]) {
    const { db, fake } = await startedClient(t);
    arrival.forEach(([id, rank], index) => fake.emit({ type: "delta", delta: { collection: "todos", id, method: "create", data: rank === undefined ? { id, title: id } : { id, title: id, rank }, seq: index + 1, stream: STREAM } }));
    await waitForStatus(db, (status) => status.streams[STREAM] === arrival.length);
    orders.push(db.store.list("todos", { sort: "rank" }).map((entry) => String(entry.data.id)));
    orders.push(db.store.list("todos", { sort: "-rank" }).map((entry) => String(entry.data.id)).reverse());
  }
  t.deepEqual(orders[0], ["n", "u", "f", "b", "two", "ten", "z", "s", "o"]);
  for (const order of orders.slice(1)) t.deepEqual(order.filter((id) => id !== "n" && id !== "u"), orders[0]!.filter((id) => id !== "n" && id !== "u"));
});
