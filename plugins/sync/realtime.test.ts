import test from "ava";
import { ACCOUNTS } from "../../contracts/accounts.js";
import { stopTestDatabase } from "../../hosts/testing.js";
import { TestUser } from "../../test/support/auth-test-app.js";
import { killChangeStreamCursors } from "../../test/support/kill-change-stream-cursors.js";
import { recordingSocket, type RecordingSocket } from "../../test/support/recording-socket.js";
import { as, SyncTask, SyncTodo, syncTestApp, uid, type SyncCaller } from "../../test/support/sync-test-app.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import { SyncErrors, type BatchAnswer, type MutationOutcome, type SyncAck, type SyncDelta, type SyncNack } from "./index.js";

// The realtime half of sync over a real socket.io client: subscriptions, deltas pushed from the
// change stream, mutations and batches with acks and nacks, auth expiry. One app for the file;
// every test uses its own users and ids.

let stopApp: (() => Promise<void> | void) | undefined;
const shared = syncTestApp({ teardown: (fn) => void (stopApp = fn) }, { realtime: { authCheckIntervalMs: 250 } });
test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
});

const closers: Array<() => void> = [];
test.after.always(() => closers.forEach((close) => close()));

async function socketOf(caller?: SyncCaller): Promise<RecordingSocket> {
  const { socketUrl } = await shared;
  return recordingSocket(socketUrl!, { token: caller?.token, teardown: (fn) => closers.push(fn) });
}

/** A signed-in socket subscribed to `collections`, once `sync:subscribed` arrived for each. */
async function subscribed(caller: SyncCaller, collections: string[] = ["synctodos"]): Promise<RecordingSocket> {
  const client = await socketOf(caller);
  client.emit("sync:subscribe", { collections });
  for (const collection of collections) await client.next("sync:subscribed", (payload: { collection: string }) => payload.collection === collection);
  return client;
}

const todo = (overrides: Record<string, unknown> = {}) => ({ mutationId: uid("m"), collection: "synctodos", operation: "create", id: uid("todo"), data: { title: "Milk" }, ...overrides });
const isDeltaOf = (id: string, method?: string) => (delta: SyncDelta) => delta.id === id && (method === undefined || delta.method === method);

test("subscribe confirms the caller's streams; create, update and delete reach the socket as deltas in seq order", async (t) => {
  const { signup } = await shared;
  const alice = await signup();
  const client = await socketOf(alice);
  const answer = await client.request<unknown[]>("sync:subscribe", { collections: ["synctodos"] });
  const confirmed = await client.next("sync:subscribed");
  t.deepEqual(confirmed, { collection: "synctodos", streams: [`synctodos|owner:${alice.id}`] });
  t.deepEqual(answer, [confirmed]);

  const id = uid("todo");
  await as((await shared).http, alice).post("/sync/mutate").send(todo({ id, data: { title: "Milk" } })).expect(200);
  const created = await client.next<SyncDelta>("sync:delta", isDeltaOf(id, "create"));
  t.like(created, { collection: "synctodos", id, method: "create", stream: `synctodos|owner:${alice.id}`, deleted: false });
  t.is(created.frontierSeq, created.seq);
  t.like(created.data, { id, title: "Milk", done: false, ownerId: alice.id });
  t.false("_syncSeq" in created.data! || "_syncStream" in created.data! || "_id" in created.data!);

  await as((await shared).http, alice).post("/sync/mutate").send(todo({ id, operation: "update", data: { done: true }, baseVersion: created.seq })).expect(200);
  const updated = await client.next<SyncDelta>("sync:delta", isDeltaOf(id, "update"));
  t.is(updated.seq, created.seq + 1);
  t.like(updated.data, { done: true });

  await as((await shared).http, alice).post("/sync/mutate").send(todo({ id, operation: "delete", data: undefined, baseVersion: updated.seq })).expect(200);
  const deleted = await client.next<SyncDelta>("sync:delta", isDeltaOf(id, "delete"));
  t.like(deleted, { seq: updated.seq + 1, deleted: true });
});

test("writes made with save() outside sync also reach subscribers", async (t) => {
  const { signup } = await shared;
  const alice = await signup();
  const client = await subscribed(alice);
  const id = uid("todo");
  await new SyncTodo({ _id: id, title: "Saved by server code", ownerId: alice.id }).save();
  t.like(await client.next<SyncDelta>("sync:delta", isDeltaOf(id)), { method: "create", data: { title: "Saved by server code" } });
});

test("a socket hears only its own streams: another user's writes never reach it", async (t) => {
  const { signup, http } = await shared;
  const [alice, bob] = [await signup(), await signup()];
  const aliceSocket = await subscribed(alice);
  const bobId = uid("bob");
  await as(http, bob).post("/sync/mutate").send(todo({ id: bobId })).expect(200);
  // Deltas leave in commit order: once Alice's later write arrives, Bob's would have come before it.
  const aliceId = uid("alice");
  await as(http, alice).post("/sync/mutate").send(todo({ id: aliceId })).expect(200);
  await aliceSocket.next("sync:delta", isDeltaOf(aliceId));
  t.false(aliceSocket.events.some(([, payload]) => (payload as SyncDelta).id === bobId));
});

test("a stream move is a delete without data in the old stream and a create in the new one", async (t) => {
  const { signup, http } = await shared;
  const [alice, bob] = [await signup(), await signup()];
  const aliceSocket = await subscribed(alice, ["synctasks"]);
  const bobSocket = await subscribed(bob, ["synctasks"]);
  const id = uid("task");
  const created = await as(http, alice).post("/sync/mutate").send({ mutationId: uid("m"), collection: "synctasks", operation: "create", id, data: { title: "Review", assigneeId: alice.id } }).expect(200);
  await aliceSocket.next("sync:delta", isDeltaOf(id, "create"));
  // Alice hands it to Bob (SyncTask's stream is its assignee); the open router lets her.
  const moved = await as(http, alice).post("/sync/mutate").send({ mutationId: uid("m"), collection: "synctasks", operation: "update", id, data: { assigneeId: bob.id }, baseVersion: created.body.ack.seq });
  // A move into a stream the caller is not in is refused: hand-over is done by server code instead.
  t.is(moved.status, 403);
  const task = await SyncTask.findById(id).orFail();
  task.set("assigneeId", bob.id);
  await task.save();
  const gone = await aliceSocket.next<SyncDelta>("sync:delta", isDeltaOf(id, "delete"));
  t.like(gone, { stream: `synctasks|owner:${alice.id}`, deleted: true });
  t.is(gone.data, undefined, "the old stream learns nothing of the entity's new data");
  const arrived = await bobSocket.next<SyncDelta>("sync:delta", isDeltaOf(id));
  t.like(arrived, { method: "create", stream: `synctasks|owner:${bob.id}`, data: { assigneeId: bob.id } });
});

test("tenant, broadcast and custom scopes: subscribers get their streams and only their deltas", async (t) => {
  const { signup, http } = await shared;
  const acme = await signup("acme");
  const beta = await signup("beta");
  const acmeSocket = await subscribed(acme, ["syncnotes", "syncnews", "synccards"]);
  const confirmed = acmeSocket.events.filter(([name]) => name === "sync:subscribed").map(([, payload]) => payload);
  t.deepEqual(confirmed, [
    { collection: "syncnotes", streams: ["syncnotes|tenant:acme"] },
    { collection: "syncnews", streams: ["syncnews|all"] },
    // A custom scope cannot tell which of a user's scope keys are its own: every key is a stream.
    { collection: "synccards", streams: ["synccards|tenant:acme", "synccards|board:acme"] },
  ]);
  const betaNote = uid("note");
  await as(http, beta).post("/sync/mutate").send({ mutationId: uid("m"), collection: "syncnotes", operation: "create", id: betaNote, data: { text: "beta only", orgId: "beta" } }).expect(200);
  const acmeCard = uid("card");
  await as(http, acme).post("/sync/mutate").send({ mutationId: uid("m"), collection: "synccards", operation: "create", id: acmeCard, data: { label: "A", board: "acme" } }).expect(200);
  await acmeSocket.next("sync:delta", isDeltaOf(acmeCard));
  t.false(acmeSocket.events.some(([, payload]) => (payload as SyncDelta).id === betaNote));
  const acmeNote = uid("note");
  await as(http, acme).post("/sync/mutate").send({ mutationId: uid("m"), collection: "syncnotes", operation: "create", id: acmeNote, data: { text: "acme", orgId: "acme" } }).expect(200);
  t.like(await acmeSocket.next<SyncDelta>("sync:delta", isDeltaOf(acmeNote)), { stream: "syncnotes|tenant:acme" });
});

test("sync:mutate answers sync:ack (and the acknowledgement callback); a replay over the socket and then HTTP returns the same ack and writes once", async (t) => {
  const { signup, http } = await shared;
  const alice = await signup();
  const client = await socketOf(alice);
  const mutation = todo();
  const answered = await client.request<MutationOutcome>("sync:mutate", mutation);
  const ack = await client.next<SyncAck>("sync:ack", (payload) => payload.mutationId === mutation.mutationId);
  t.deepEqual(answered, { ack });
  t.deepEqual(ack, { mutationId: mutation.mutationId, id: mutation.id, seq: ack.seq });

  client.emit("sync:mutate", mutation);
  t.deepEqual(await client.next("sync:ack", (payload: SyncAck) => payload.mutationId === mutation.mutationId), ack);
  const overHttp = await as(http, alice).post("/sync/mutate").send(mutation).expect(200);
  t.deepEqual(overHttp.body, { ack });
  const stored = await SyncTodo.findById(mutation.id).lean().orFail();
  t.is(stored._syncSeq, ack.seq, "applied once: the seq did not move");
});

test("mutations from one socket are applied in the order they were sent", async (t) => {
  const { signup } = await shared;
  const alice = await signup();
  const client = await socketOf(alice);
  const id = uid("todo");
  const create = todo({ id });
  client.emit("sync:mutate", create);
  // Sent before the create is acked: it relies on the create having been applied first.
  client.emit("sync:mutate", todo({ id, operation: "update", data: { title: "Oat milk" }, baseVersion: 1 }));
  client.emit("sync:mutate", todo({ id, operation: "update", data: { done: true }, baseVersion: 2 }));
  const acks = [await client.next<SyncAck>("sync:ack"), await client.next<SyncAck>("sync:ack"), await client.next<SyncAck>("sync:ack")];
  t.deepEqual(acks.map((ack) => ack.seq), [1, 2, 3]);
  t.like(await SyncTodo.findById(id).lean().orFail(), { title: "Oat milk", done: true });
});

test("every nack code over the socket: conflict (with the server's entity), forbidden, validation, not_found, error", async (t) => {
  const { signup } = await shared;
  const [alice, bob] = [await signup(), await signup()];
  const client = await socketOf(alice);
  const nackOf = async (mutation: Record<string, unknown>) => {
    client.emit("sync:mutate", mutation);
    return client.next<SyncNack>("sync:nack", (payload) => payload.mutationId === mutation.mutationId);
  };
  const id = uid("todo");
  const first = await client.request<{ ack: SyncAck }>("sync:mutate", todo({ id }));

  const conflict = await nackOf(todo({ id, operation: "update", data: { done: true }, baseVersion: first.ack.seq + 5 }));
  t.like(conflict, { code: "conflict", serverSeq: first.ack.seq, serverDeleted: false, serverDoc: { id, title: "Milk" } });
  t.like(await nackOf({ mutationId: uid("m"), collection: "synctasks", operation: "create", id: uid("task"), data: { title: "x", assigneeId: bob.id } }), { code: "forbidden" });
  t.like(await nackOf(todo({ data: { title: { $gt: "" } } })), { code: "validation" });
  t.like(await nackOf(todo({ data: { title: "x", admin: true } })), { code: "validation" });
  t.like(await nackOf(todo({ collection: "nothing-here" })), { code: "not_found" });
  t.like(await nackOf(todo({ id: uid("absent"), operation: "update", data: { done: true }, baseVersion: 1 })), { code: "not_found" });
  // Bob's todo is invisible to Alice: updating or deleting it is not_found, and it stays as it was.
  const bobsId = uid("bobs");
  await new SyncTodo({ _id: bobsId, title: "Bob's", ownerId: bob.id }).save();
  t.like(await nackOf(todo({ id: bobsId, operation: "update", data: { title: "mine now" }, baseVersion: 1 })), { code: "not_found" });
  t.like(await nackOf(todo({ id: bobsId, operation: "delete", baseVersion: 1 })), { code: "not_found" });
  t.like(await nackOf(todo({ id: bobsId })), { code: "forbidden" }, "creating over a foreign id");
  t.like(await SyncTodo.findById(bobsId).lean().orFail(), { title: "Bob's", deleted: false, _syncSeq: 1 });
  t.like(await nackOf(todo({ data: { title: "server trouble" } })), { code: "error" });
  t.is(await SyncTodo.countDocuments({ ownerId: alice.id }), 1, "nothing but the first create was written");
});

test("sync:mutateBatch applies in order, stops at the first non-ack, and acknowledges with every result", async (t) => {
  const { signup } = await shared;
  const alice = await signup();
  const client = await socketOf(alice);
  const id = uid("todo");
  const entries = [todo({ id }), todo({ id, operation: "update", data: { done: "yes" }, baseVersion: 1 }), todo()];
  const answer = await client.request<BatchAnswer>("sync:mutateBatch", { mutations: entries, batchId: "b-1" });
  t.is(answer.batchId, "b-1");
  t.true("ack" in answer.results[0]!);
  t.like(answer.results[1], { nack: { mutationId: entries[1]!.mutationId, code: "validation" } });
  t.deepEqual(answer.results[2], { notAttempted: { mutationId: entries[2]!.mutationId } });
  t.like(await client.next("sync:ack"), { mutationId: entries[0]!.mutationId });
  t.like(await client.next("sync:nack"), { mutationId: entries[1]!.mutationId });
  t.is(await SyncTodo.countDocuments({ ownerId: alice.id }), 1);
});

test("malformed events get sync:error or a nack, write nothing, and the socket keeps working", async (t) => {
  const { signup } = await shared;
  const alice = await signup();
  const client = await socketOf(alice);
  for (const payload of [null, "todos", 42, [], {}, { collections: "synctodos" }, { collections: [1] }, { collections: [] }, { collections: ["synctodos"], $where: "1" }]) {
    const answer = await client.request<{ errors: Array<{ code: string }> }>("sync:subscribe", payload);
    t.is(answer.errors[0]!.code, SyncErrors.INVALID_EVENT.code, JSON.stringify(payload));
  }
  t.like(await client.next("sync:error"), { collection: "", code: SyncErrors.INVALID_EVENT.code });
  for (const payload of [null, "x", { mutations: [] }, { mutations: "x" }, { mutations: Array.from({ length: 101 }, () => todo()) }]) {
    const answer = await client.request<{ errors: Array<{ code: string }> }>("sync:mutateBatch", payload);
    t.is(answer.errors[0]!.code, SyncErrors.INVALID_EVENT.code);
  }
  for (const payload of [null, "x", 7, [], { mutationId: "m" }, { ...todo(), operation: "drop" }, { ...todo(), extra: 1 }]) {
    const answer = await client.request<{ nack: SyncNack }>("sync:mutate", payload);
    t.is(answer.nack.code, "validation");
  }
  const unknown = await client.request<Array<{ code: string; collection: string }>>("sync:subscribe", { collections: ["nope"] });
  t.like(unknown[0], { collection: "nope", code: SyncErrors.UNKNOWN_COLLECTION.code });
  t.is(await SyncTodo.countDocuments({ ownerId: alice.id }), 0);
  // Still served.
  t.true("ack" in (await client.request<MutationOutcome>("sync:mutate", todo())));
});

test("a 1 MB mutation is refused with a validation nack; the socket and server stay up", async (t) => {
  const { signup } = await shared;
  const alice = await signup();
  const client = await socketOf(alice);
  const huge = todo({ data: { title: "x".repeat(1024 * 1024) } });
  const answer = await client.request<{ nack: SyncNack }>("sync:mutate", huge);
  t.like(answer.nack, { mutationId: huge.mutationId, code: "validation" });
  const batch = await client.request<BatchAnswer>("sync:mutateBatch", { mutations: [huge] });
  t.like(batch.results[0], { nack: { code: "validation" } });
  t.is(await SyncTodo.countDocuments({ _id: huge.id }), 0);
  t.true("ack" in (await client.request<MutationOutcome>("sync:mutate", todo())));
});

test("anonymous sockets connect but get no sync: subscribe is refused, mutations are nacked", async (t) => {
  const client = await socketOf();
  const answer = await client.request<{ errors: Array<{ code: string }> }>("sync:subscribe", { collections: ["synctodos"] });
  t.is(answer.errors[0]!.code, HttpErrors.UNAUTHENTICATED.code);
  const refused = await client.request<{ nack: SyncNack }>("sync:mutate", todo());
  t.is(refused.nack.code, "forbidden");
  const batch = await client.request<{ errors: Array<{ code: string }> }>("sync:mutateBatch", { mutations: [todo()] });
  t.is(batch.errors[0]!.code, HttpErrors.UNAUTHENTICATED.code);
});

test("a user disabled mid-session gets sync:auth-expired (disabled) and the socket is let go", async (t) => {
  const { signup } = await shared;
  const alice = await signup();
  const client = await subscribed(alice);
  await TestUser.updateOne({ _id: alice.id }, { disabled: true });
  // The periodic check (250 ms in this app) finds it, with no event from the client.
  t.deepEqual(await client.next("sync:auth-expired"), { reason: "disabled" });
  t.is(await client.disconnected, "io server disconnect");
});

test("a new password ends a signed-in socket too: sync:auth-expired (expired), and the socket is let go", async (t) => {
  const { app, signup } = await shared;
  const alice = await signup();
  const client = await subscribed(alice);
  await app.resolve(ACCOUNTS).setPassword(alice.id, "a brand new password");
  t.deepEqual(await client.next("sync:auth-expired"), { reason: "expired" });
  t.is(await client.disconnected, "io server disconnect");
});

test("a mutation from a socket whose user was disabled is nacked, never applied", async (t) => {
  const { signup } = await shared;
  const alice = await signup();
  const client = await socketOf(alice);
  await TestUser.updateOne({ _id: alice.id }, { disabled: true });
  const mutation = todo();
  client.emit("sync:mutate", mutation);
  const outcome = await Promise.race([client.next<SyncNack>("sync:nack"), client.disconnected.then(() => undefined)]);
  if (outcome) t.is(outcome.code, "forbidden");
  t.is(await client.disconnected, "io server disconnect");
  t.is(await SyncTodo.countDocuments({ _id: mutation.id }), 0);
});

test("when the server kills the change stream's cursor, deltas resume with nothing lost", async (t) => {
  const { signup, http } = await shared;
  const alice = await signup();
  const client = await subscribed(alice);
  const db = SyncTodo.db;
  await killChangeStreamCursors(db.getClient(), `${db.name}.$cmd.aggregate`);
  const ids = [uid("todo"), uid("todo"), uid("todo")];
  for (const id of ids) await as(http, alice).post("/sync/mutate").send(todo({ id })).expect(200);
  const deltas = await Promise.all(ids.map((id) => client.next<SyncDelta>("sync:delta", isDeltaOf(id))));
  t.deepEqual(deltas.map((delta) => delta.method), ["create", "create", "create"]);
});
