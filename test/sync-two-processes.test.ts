// Two app processes on one database, as behind a load balancer (docs/sync.md "Deploying"): the
// per-stream turns that order writers inside a process do not reach the other process, so there
// only the database orders them (the counter's transaction conflicts and is retried). Writers of
// one stream through both processes still get one seq each, with no gap; a mutation sent to both
// at once is applied once and both answer its ack; and a socket on one process gets the deltas of
// writes made through the other, once each and in seq order.
import test from "ava";
import request from "supertest";
import type { SyncDelta } from "../plugins/sync/index.js";
import { syncBookkeeping } from "../plugins/sync/sync-bookkeeping.js";
import { recordingSocket } from "./support/recording-socket.js";
import { twoProcesses } from "./support/second-process.js";
import { as, SyncNote, syncTestApp, uid, type SyncCaller, type SyncTestApp } from "./support/sync-test-app.js";

const { first, second, closers } = twoProcesses(test, (t) => syncTestApp(t, { realtime: {} }), new URL("./support/sync-second-process.ts", import.meta.url));

/** A caller signed up through the first process; its token works on both (one secret, one database). */
async function tenantUsers(tenant: string, count: number): Promise<SyncCaller[]> {
  const { signup } = await first;
  return Promise.all(Array.from({ length: count }, () => signup(tenant)));
}

const createNote = (id: string, tenant: string) => ({ mutationId: uid("m"), collection: "syncnotes", operation: "create", id, data: { text: "x", orgId: tenant } });

test("400 concurrent writers of one tenant stream through two processes: every write applied, seqs 1 to 400, each once", async (t) => {
  const { http } = await first;
  const { url } = await second;
  const tenant = `split${process.pid}`;
  const users = await tenantUsers(tenant, 8);
  const answers = await Promise.all(
    Array.from({ length: 400 }, (_, index) => {
      const user = users[index % users.length]!;
      const id = uid("note");
      // Both write paths of each process: the sync route, and REST (a plain save()).
      const target = index % 2 === 0 ? request(http) : request(url);
      return index % 4 < 2
        ? target.post("/sync/mutate").set("Authorization", `Bearer ${user.token}`).send(createNote(id, tenant))
        : target.post("/sync-notes").set("Authorization", `Bearer ${user.token}`).send({ _id: id, text: "x", orgId: tenant });
    }),
  );
  const failed = answers.filter((answer) => answer.status >= 300);
  t.is(failed.length, 0, JSON.stringify(failed[0]?.body));
  const seqs = (await SyncNote.find({ _syncStream: `syncnotes|tenant:${tenant}` }).lean()).map((note) => note._syncSeq as number).sort((a, b) => a - b);
  t.deepEqual(seqs, Array.from({ length: 400 }, (_, index) => index + 1));
  const { counters } = syncBookkeeping(SyncNote.db);
  t.is((await counters.findOne({ stream: `syncnotes|tenant:${tenant}` }).lean())?.seq, 400);
});

test("a mutation sent to both processes at once is applied once, and both answer its one ack", async (t) => {
  const { http } = await first;
  const { url } = await second;
  const tenant = `twice${process.pid}`;
  const [user] = await tenantUsers(tenant, 1);
  const mutations = Array.from({ length: 30 }, () => createNote(uid("note"), tenant));
  const answers = await Promise.all(
    mutations.flatMap((mutation) => [
      as(http, user).post("/sync/mutate").send(mutation),
      request(url).post("/sync/mutate").set("Authorization", `Bearer ${user!.token}`).send(mutation),
    ]),
  );
  for (let index = 0; index < mutations.length; index++) {
    const [viaFirst, viaSecond] = [answers[2 * index]!, answers[2 * index + 1]!];
    t.is(viaFirst.status, 200, JSON.stringify(viaFirst.body));
    t.is(viaSecond.status, 200, JSON.stringify(viaSecond.body));
    t.deepEqual(viaFirst.body.ack, viaSecond.body.ack, "the replay answers the original ack");
  }
  // One seq per mutation: nothing was applied twice.
  const stream = `syncnotes|tenant:${tenant}`;
  t.is(await SyncNote.countDocuments({ _syncStream: stream }), mutations.length);
  const { counters } = syncBookkeeping(SyncNote.db);
  t.is((await counters.findOne({ stream }).lean())?.seq, mutations.length);
});

test("a socket on one process gets the deltas of writes made through the other, once each and in seq order", async (t) => {
  const { http } = await first;
  const { socketUrl } = await second;
  if (!socketUrl) throw new Error("the second process serves no socket");
  const tenant = `fan${process.pid}`;
  const [writer, reader] = await tenantUsers(tenant, 2);
  const client = await recordingSocket(socketUrl, { token: reader!.token, teardown: (fn) => closers.push(fn) });
  client.emit("sync:subscribe", { collections: ["syncnotes"] });
  await client.next("sync:subscribed");
  const stream = `syncnotes|tenant:${tenant}`;
  const writes = 60;
  const answers = await Promise.all(Array.from({ length: writes }, () => as(http, writer).post("/sync/mutate").send(createNote(uid("note"), tenant))));
  t.deepEqual(
    answers.filter((answer) => answer.status !== 200).map((answer) => answer.body),
    [],
  );
  const seqs: number[] = [];
  for (let index = 0; index < writes; index++) {
    const delta = await client.next<SyncDelta>("sync:delta", (payload) => payload.stream === stream);
    seqs.push(delta.seq);
  }
  t.deepEqual(seqs, Array.from({ length: writes }, (_, index) => index + 1));
});

test.after("the second process logged no error", async (t) => {
  const { output } = await second;
  // Its error lines reach stderr within 50 ms of being logged.
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.is(output(), "");
});
