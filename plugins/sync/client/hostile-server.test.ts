import test from "ava";
import { createFakeTransport, type FakeTransport } from "../testing/index.js";
import { createSyncDb, type SyncAuthProvider, type SyncDbOptions, type SyncHttpChannel } from "./index.js";
import { settled, waitForStatus } from "./test-support/wait-for.js";

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
