import test from "ava";
import { createFakeTransport, type FakeTransport } from "../testing/index.js";
import { createMemoryPersister, createSyncDb, type BatchOutcome, type SyncAuthProvider, type SnapshotEntity, type SyncDbOptions, type SyncDelta, type SyncHttpChannel, type SyncTransport, type WireMutation } from "./index.js";
import { eventually, settled, waitForStatus } from "./test-support/wait-for.js";

// The client against a server that answers what it should not: it must neither loop nor crash
// nor drop writes. The fake transport plays the server; a test bends one of its answers.

const STREAM = "todos|owner:fake";

const auth: SyncAuthProvider = { getToken: () => "token-1", getUserId: () => "u1", onAuthChange: () => () => {} };

function client(fake: FakeTransport, options: Partial<SyncDbOptions> = {}) {
  return createSyncDb({ name: "hostile", collections: ["todos"], transport: fake.transport, httpChannel: fake.httpChannel, reconcileIntervalMs: 0, ...options, authProvider: auth });
}

test("a snapshot page that says hasMore without moving the cursor ends paging as a server error, not a request loop", async (t) => {
  const fake = createFakeTransport();
  fake.putEntity(STREAM, "todos", { id: "t1", data: { title: "A" }, deleted: false });
  let pages = 0;
  let stuck = true;
  const httpChannel: SyncHttpChannel = {
    ...fake.httpChannel,
    async snapshot(query, token) {
      pages++;
      const page = await fake.httpChannel.snapshot(query, token);
      return stuck ? { ...page, cursor: query.cursor, hasMore: true } : page;
    },
  };
  const db = client(fake, { httpChannel, debug: true });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => status.isOnline && !status.isSyncing);
  const before = pages;
  await t.throwsAsync(db.reconcile(), { message: /hasMore with cursor 0/ });
  t.is(pages, before + 1);
  t.like(await db.forceResync(), { ok: false, reason: "server" });
  t.is(pages, before + 2);
  t.true(db.debug.events.some((event) => event.type === "request-failed"));
  // A server that answers properly again is paged as usual.
  stuck = false;
  await db.reconcile();
  t.like(db.store.get("todos", "t1"), { data: { id: "t1", title: "A" }, seq: 1 });
});

/** The fake's transport, its first `sync:mutateBatch` answers replaced by `answers` (in order). */
function bentBatches(fake: FakeTransport, ...answers: Array<(mutations: readonly WireMutation[]) => unknown>) {
  const transport: SyncTransport = {
    ...fake.transport,
    async mutateBatch(mutations, batchId) {
      const bend = answers.shift();
      return bend ? (bend(mutations) as readonly BatchOutcome[]) : fake.transport.mutateBatch(mutations, batchId);
    },
  };
  return transport;
}

test("a batch answer is matched by mutationId: an ack of another mutation does not settle (and lose) the one sent", async (t) => {
  const fake = createFakeTransport();
  const transport = bentBatches(fake, () => [{ ack: { mutationId: "someone-else", id: "x", seq: 7 } }]);
  const db = client(fake, { transport, debug: true });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => status.isOnline);
  const { id } = db.mutate({ collection: "todos", operation: "create", data: { title: "Mine" } });
  await waitForStatus(db, settled);
  t.deepEqual(
    fake.entities(STREAM).map((entity) => entity.id),
    [id],
  );
  t.like(db.store.get("todos", id), { isPending: false, seq: 1 });
  // Answered with nothing it could read, the batch waited a backoff before it was sent again.
  t.true(db.debug.events.some((event) => event.type === "retry-scheduled"));
});

test("a batch answer that is no list, or lists nothing readable, is retried after a backoff (not at once, not a crash)", async (t) => {
  for (const answer of [undefined, [], [null, { ack: null }, { nack: { mutationId: "m" } }], [{ ack: { seq: 1 } }]]) {
    const fake = createFakeTransport();
    let mutationId = "";
    const transport = bentBatches(fake, () => answer, (mutations) => [{ ack: { mutationId: (mutationId = mutations[0]!.mutationId), id: mutations[0]!.id } }]);
    const db = client(fake, { transport, debug: true });
    await db.start();
    await waitForStatus(db, (status) => status.isOnline);
    const { id } = db.mutate({ collection: "todos", operation: "create", data: { title: "Mine" } });
    // The second answer is an ack without a seq: still not settled, sent a third time.
    await waitForStatus(db, settled);
    t.truthy(mutationId);
    t.deepEqual(
      fake.entities(STREAM).map((entity) => entity.id),
      [id],
      JSON.stringify(answer),
    );
    t.is(db.debug.events.filter((event) => event.type === "retry-scheduled").length, 2, JSON.stringify(answer));
    await db.stop();
  }
});

test("rate_limited: a retryAfterMs that is missing or no number waits 1 s, a huge one at most 60 s; stop() ends the wait", async (t) => {
  const fake = createFakeTransport();
  const db = client(fake, { debug: true });
  await db.start();
  await waitForStatus(db, (status) => status.isOnline);
  const waits = () => db.debug.events.filter((event) => event.type === "rate-limited").map((event) => event.detail?.waitMs);
  fake.queueNack({ code: "rate_limited", retryAfterMs: "soon" as unknown as number });
  db.mutate({ collection: "todos", operation: "create", data: { title: "A" } });
  await waitForStatus(db, settled);
  fake.queueNack({ code: "rate_limited", retryAfterMs: 1e12 });
  db.mutate({ collection: "todos", operation: "create", data: { title: "B" } });
  await eventually(() => waits().length === 2);
  t.deepEqual(waits(), [1_000, 60_000]);
  // The drain waiting out the limit ends with stop(), leaving no timer behind.
  const replay = db.replayOutbox();
  await db.stop();
  await replay;
  t.like(db.getSyncStatus(), { isSyncing: false, queuedCount: 1 });
});

test("malformed deltas are skipped (logged without their data); the others of the same burst apply and move the cursor", async (t) => {
  const fake = createFakeTransport();
  const db = client(fake, { debug: true });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, settled);
  const valid = (seq: number, title: string) => ({ collection: "todos", id: `t${seq}`, method: "create", data: { title }, seq, stream: STREAM });
  for (const delta of [valid(1, "one"), null, "junk", { ...valid(2, "secret"), seq: "2" }, { ...valid(2, "secret"), id: undefined }, { ...valid(2, "secret"), stream: 7 }, { ...valid(2, "secret"), data: [1] }, valid(2, "two")]) {
    fake.emit({ type: "delta", delta: delta as unknown as SyncDelta });
  }
  await eventually(() => db.getSyncStatus().streams[STREAM] === 2, () => JSON.stringify(db.getSyncStatus()));
  t.deepEqual(
    db.store.list("todos").map((entity) => entity.data),
    [
      { id: "t1", title: "one" },
      { id: "t2", title: "two" },
    ],
  );
  const malformed = db.debug.events.filter((event) => event.type === "delta-malformed");
  t.is(malformed.length, 6);
  t.false(JSON.stringify(malformed).includes("secret"));
});

test("a snapshot page's malformed entities are skipped; its others apply and the cursor moves past the page", async (t) => {
  const fake = createFakeTransport();
  const httpChannel: SyncHttpChannel = {
    ...fake.httpChannel,
    async snapshot(query, token) {
      const page = await fake.httpChannel.snapshot(query, token);
      return query.cursor === 0 ? { ...page, entities: [null, { id: "t9", data: "x", seq: 1, deleted: false }, { id: "t1", data: { title: "A" }, seq: 2, deleted: false }] as unknown as SnapshotEntity[], cursor: 2 } : page;
    },
  };
  const db = client(fake, { httpChannel });
  await db.start();
  t.teardown(() => db.stop());
  await waitForStatus(db, (status) => status.isOnline && status.streams[STREAM] === 2);
  t.deepEqual(
    db.store.list("todos").map((entity) => entity.data),
    [{ id: "t1", title: "A" }],
  );
  t.like(await db.forceResync(), { ok: true, repaired: 0 });
});

test("a snapshot page answered after signOut() is dropped: the signed-out user's entities come back neither in memory nor in the next user's store", async (t) => {
  for (const nextUser of [false, true]) {
    const fake = createFakeTransport();
    fake.putEntity(STREAM, "todos", { id: "t1", data: { title: "Private" }, deleted: false });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    let answered = 0;
    const httpChannel: SyncHttpChannel = {
      ...fake.httpChannel,
      async snapshot(query, token) {
        const page = await fake.httpChannel.snapshot(query, token);
        if (asked++ === 0) await gate;
        answered++;
        return page;
      },
    };
    let userId = "u1";
    const persisterFactory = createMemoryPersister();
    const db = createSyncDb({ name: "hostile", collections: ["todos"], transport: fake.transport, httpChannel, reconcileIntervalMs: 0, persisterFactory, authProvider: { ...auth, getUserId: () => userId } });
    await db.start();
    await eventually(() => asked === 1);
    await db.signOut();
    if (nextUser) {
      // The next user starts offline, from their own (empty) store, while u1's page is in flight.
      userId = "u2";
      fake.setReachable(false);
      await db.start();
    }
    release();
    await eventually(() => answered === 1 && !db.getSyncStatus().isSyncing);
    await db.whenPersisted();
    t.deepEqual(db.store.list("todos"), [], `next user: ${nextUser}`);
    await db.stop();
    if (nextUser) {
      await db.start();
      t.deepEqual(db.store.list("todos"), [], "u2's stored copy");
      await db.stop();
    }
  }
});
