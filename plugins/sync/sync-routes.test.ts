import test from "ava";
import { stopTestDatabase } from "../../hosts/testing.js";
import { as, hookCalls, SyncTodo, syncTestApp, uid, type SyncTestApp } from "../../test/support/sync-test-app.js";

let stopApp: (() => Promise<void> | void) | undefined;
const shared: Promise<SyncTestApp> = syncTestApp({ teardown: (fn) => void (stopApp = fn) });
test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
});

test("create over /sync/mutate, then the snapshot pages it with its seq", async (t) => {
  const { http, signup } = await shared;
  const alice = await signup();
  const id = uid("todo");
  const created = await as(http, alice).post("/sync/mutate").send({ mutationId: uid("m"), collection: "synctodos", operation: "create", id, data: { title: "Milk" } });
  t.is(created.status, 200, JSON.stringify(created.body));
  t.is(created.body.ack.id, id);
  t.is(created.body.ack.seq, 1);
  const page = await as(http, alice).get("/sync/snapshot?collection=synctodos").expect(200);
  t.is(page.body.stream, `synctodos|owner:${alice.id}`);
  t.is(page.body.frontierSeq, 1);
  t.is(page.body.cursor, 1);
  t.false(page.body.hasMore);
  t.is(page.body.entities.length, 1);
  t.like(page.body.entities[0], { id, seq: 1, deleted: false, data: { id, title: "Milk", ownerId: alice.id } });
  t.true(hookCalls.includes(`postCreate:${id}`));
  const stored = await SyncTodo.findById(id).lean();
  t.is(stored?._syncSeq, 1);
});
