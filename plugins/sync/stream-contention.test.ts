import test from "ava";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { as, SyncNote, syncTestApp, uid, type SyncTestApp } from "../../test/support/sync-test-app.js";

// Many writers of one stream at once (a busy tenant): each write's transaction draws from the
// stream's counter, and writers that conflict wait their turn in the process instead of all
// retrying at once, which made them conflict with each other until many ran out of attempts.

let stopApp: (() => Promise<void> | void) | undefined;
const shared: Promise<SyncTestApp> = syncTestApp({ teardown: (fn) => void (stopApp = fn) });
test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
});

test("400 concurrent creates in one tenant stream, over /sync/mutate and REST: every one is applied, each with its own seq", async (t) => {
  const { http, signup } = await shared;
  const tenant = `busy${process.pid}`;
  const users = await Promise.all(Array.from({ length: 10 }, () => signup(tenant)));
  const answers = await Promise.all(
    Array.from({ length: 400 }, (_, index) => {
      const user = users[index % users.length]!;
      const id = uid("note");
      return index % 2 === 0
        ? request(http).post("/sync-notes").set("Authorization", `Bearer ${user.token}`).send({ _id: id, text: "x", orgId: tenant })
        : as(http, user).post("/sync/mutate").send({ mutationId: uid("m"), collection: "syncnotes", operation: "create", id, data: { text: "x", orgId: tenant } });
    }),
  );
  const failed = answers.filter((answer) => answer.status >= 300);
  t.is(failed.length, 0, JSON.stringify(failed[0]?.body));
  const seqs = (await SyncNote.find({ _syncStream: `syncnotes|tenant:${tenant}` }).lean()).map((note) => note._syncSeq as number).sort((a, b) => a - b);
  t.deepEqual(seqs, Array.from({ length: 400 }, (_, index) => index + 1));
});

test("concurrent REST PATCHes of one synced document all apply: a save from a copy another write changed is retried from a fresh load, as on other models", async (t) => {
  const { http, signup } = await shared;
  const tenant = `patch${process.pid}`;
  const users = await Promise.all(Array.from({ length: 5 }, () => signup(tenant)));
  const id = uid("note");
  const created = await request(http).post("/sync-notes").set("Authorization", `Bearer ${users[0]!.token}`).send({ _id: id, text: "start", orgId: tenant });
  t.is(created.status, 201, JSON.stringify(created.body));
  // Every PATCH changes the same field to its own text; with other models they would all answer 200.
  const texts = Array.from({ length: 30 }, (_, index) => `text ${index}`);
  const answers = await Promise.all(
    texts.map((text, index) => request(http).patch(`/sync-notes/${id}`).set("Authorization", `Bearer ${users[index % users.length]!.token}`).send({ text })),
  );
  const failed = answers.filter((answer) => answer.status !== 200);
  t.is(failed.length, 0, JSON.stringify(failed[0]?.body));
  const stored = await SyncNote.findById(id).lean();
  t.true(texts.includes(stored!.text as string), "the last write wins");
  // One seq per write: the create and every PATCH, none stamped twice.
  t.is(stored!._syncSeq, 31);
});
