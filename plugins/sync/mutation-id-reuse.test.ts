import test from "ava";
import { stopTestDatabase } from "../../hosts/testing.js";
import { recordingSocket } from "../../test/support/recording-socket.js";
import { as, SyncTodo, syncTestApp, uid, type SyncTestApp } from "../../test/support/sync-test-app.js";
import type { MutationOutcome } from "./index.js";

// A mutationId answers with its original ack only when it is sent again for the same entity: the
// same id on another write (a client bug, or two outbox entries minted alike) is refused, so the
// client never drops a write the server did not make.

let stopApp: (() => Promise<void> | void) | undefined;
const shared: Promise<SyncTestApp> = syncTestApp({ teardown: (fn) => void (stopApp = fn) }, { realtime: {} });
const closers: Array<() => void> = [];
test.after.always(async () => {
  closers.forEach((close) => close());
  await stopApp?.();
  await stopTestDatabase();
});

const create = (mutationId: string, id: string, title: string) => ({ mutationId, collection: "synctodos", operation: "create", id, data: { title } });

test("a batch reusing a mutationId for another entity: the second entry is a validation nack, not the first one's ack", async (t) => {
  const { http, signup } = await shared;
  const alice = await signup();
  const mutationId = uid("m");
  const [first, second] = [uid("todo"), uid("todo")];
  const answer = await as(http, alice).post("/sync/mutate/batch").send({ mutations: [create(mutationId, first, "one"), create(mutationId, second, "two"), create(uid("m"), uid("todo"), "three")] }).expect(200);
  const [ack, refused, after] = answer.body.results as Array<Record<string, Record<string, unknown>>>;
  t.like(ack, { ack: { mutationId, id: first } });
  t.like(refused, { nack: { mutationId, code: "validation" } });
  t.regex(String(refused!.nack!.message), new RegExp(`already used for synctodos ${first}`));
  t.truthy(after!.notAttempted);
  t.is(await SyncTodo.countDocuments({ _id: second }), 0);
});

test("over the socket and HTTP: the same mutationId on another entity or collection is refused; the same mutation again still answers its ack", async (t) => {
  const { http, signup, socketUrl } = await shared;
  const alice = await signup();
  const client = await recordingSocket(socketUrl!, { token: alice.token, teardown: (fn) => closers.push(fn) });
  const mutationId = uid("m");
  const id = uid("todo");
  const original = await client.request<MutationOutcome>("sync:mutate", create(mutationId, id, "one"));
  t.true("ack" in original);
  t.deepEqual(await client.request<MutationOutcome>("sync:mutate", create(mutationId, id, "one")), original);

  const other = uid("todo");
  const reused = await client.request<MutationOutcome>("sync:mutate", create(mutationId, other, "two"));
  t.like(reused, { nack: { mutationId, code: "validation" } });
  const update = await as(http, alice).post("/sync/mutate").send({ mutationId, collection: "synctodos", operation: "update", id: other, data: { title: "x" }, baseVersion: 1 }).expect(422);
  t.is(update.body.nack.code, "validation");
  const collection = await as(http, alice).post("/sync/mutate").send({ mutationId, collection: "syncnews", operation: "create", id, data: { headline: "x" } });
  t.not(collection.status, 200);
  t.is(await SyncTodo.countDocuments({ _id: other }), 0);

  // A create that names no id may be the replay of any create: it answers the original ack.
  const anonymous = uid("m");
  const minted = await as(http, alice).post("/sync/mutate").send({ mutationId: anonymous, collection: "synctodos", operation: "create", data: { title: "no id" } }).expect(200);
  const again = await as(http, alice).post("/sync/mutate").send({ mutationId: anonymous, collection: "synctodos", operation: "create", data: { title: "no id" } }).expect(200);
  t.deepEqual(again.body, minted.body);
});
