import test from "ava";
import type { Express } from "express";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { hasErrorCode } from "../../kernel/errors.js";
import { as, SyncCard, SyncNote, SyncTodo, syncTestApp, uid, type SyncCaller, type SyncTestApp } from "../../test/support/sync-test-app.js";
import { SyncErrors } from "./errors.js";

let stopApp: (() => Promise<void> | void) | undefined;
const shared: Promise<SyncTestApp> = syncTestApp({ teardown: (fn) => void (stopApp = fn) });
test.after.always(async () => {
  await stopApp?.();
  await stopTestDatabase();
});

interface Entity {
  id: string;
  seq: number;
  deleted: boolean;
  data: Record<string, unknown>;
}

async function send(http: Express, caller: SyncCaller, collection: string, operation: string, id: string, data?: Record<string, unknown>, baseVersion?: number) {
  return as(http, caller).post("/sync/mutate").send({ mutationId: uid("m"), collection, operation, id, data, baseVersion });
}

async function page(http: Express, caller: SyncCaller, collection: string, stream: string, cursor = 0): Promise<{ entities: Entity[]; cursor: number; hasMore: boolean; frontierSeq: number }> {
  const response = await as(http, caller).get(`/sync/snapshot?collection=${collection}&stream=${encodeURIComponent(stream)}&cursor=${cursor}`);
  if (response.status !== 200) throw new Error(`snapshot ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

test("owner scope on another field: the assignee's stream; assigning away moves it", async (t) => {
  const { http, signup } = await shared;
  const [ann, ben] = [await signup(), await signup()];
  const id = uid("task");
  t.is((await send(http, ann, "synctasks", "create", id, { title: "t", assigneeId: ann.id })).status, 200);
  // Ann may hand the task to Ben? No: it would leave for a stream she is not in.
  const away = await send(http, ann, "synctasks", "update", id, { assigneeId: ben.id }, 1);
  t.is(away.status, 403);
  t.is((await page(http, ann, "synctasks", `synctasks|owner:${ann.id}`)).entities.length, 1);
  t.is((await page(http, ben, "synctasks", `synctasks|owner:${ben.id}`)).entities.length, 0);
});

test("tenant scope: members of a tenant share its stream; a move shows as a tombstone in the old stream and a create in the new one", async (t) => {
  const { http, signup } = await shared;
  const both = await signup("both");
  const acme = await signup("acme");
  const beta = await signup("beta");
  const id = uid("note");
  t.is((await send(http, both, "syncnotes", "create", id, { text: "hello", orgId: "acme" })).status, 200);
  const acmeBefore = await page(http, acme, "syncnotes", "syncnotes|tenant:acme");
  const mine = acmeBefore.entities.find((entity) => entity.id === id)!;
  t.like(mine, { deleted: false, data: { text: "hello", orgId: "acme" } });
  const moved = await send(http, both, "syncnotes", "update", id, { orgId: "beta" }, mine.seq);
  t.is(moved.status, 200, JSON.stringify(moved.body));
  const acmeAfter = await page(http, acme, "syncnotes", "syncnotes|tenant:acme", acmeBefore.cursor);
  // (Other tests write to tenant acme too: look at this note only.)
  t.deepEqual(acmeAfter.entities.filter((entity) => entity.id === id).map((entity) => ({ id: entity.id, deleted: entity.deleted })), [{ id, deleted: true }]);
  const betaPage = await page(http, beta, "syncnotes", "syncnotes|tenant:beta");
  t.like(betaPage.entities.find((entity) => entity.id === id), { deleted: false, seq: moved.body.ack.seq, data: { orgId: "beta" } });
  // Acme's members no longer see or write it.
  t.is((await as(http, acme).get(`/sync/entities?collection=syncnotes&ids=${id}`).expect(200)).body.entities.length, 0);
  t.is((await send(http, acme, "syncnotes", "update", id, { text: "x" }, moved.body.ack.seq)).status, 404);
  // And nobody moves it into a tenant they are not in.
  t.is((await send(http, beta, "syncnotes", "update", id, { orgId: "acme" }, moved.body.ack.seq)).status, 403);
  t.is((await SyncNote.findById(id).lean())?.orgId, "beta");
});

test("broadcast scope: everyone reads one stream; only the router's permissions decide writes", async (t) => {
  const { http, signup } = await shared;
  const reader = await signup();
  t.is((await send(http, reader, "syncnews", "create", uid("news"), { headline: "x" })).status, 403);
  const { body } = await as(http, reader).get("/sync/snapshot?collection=syncnews").expect(200);
  t.is(body.stream, "syncnews|all");
});

test("custom scope: the function's stream, restricted by snapshotFilter, membership from getUserScopes", async (t) => {
  const { http, signup } = await shared;
  const acme = await signup("acme");
  const beta = await signup("beta");
  const id = uid("card");
  t.is((await send(http, acme, "synccards", "create", id, { label: "a", board: "acme" })).status, 200);
  t.is((await send(http, acme, "synccards", "create", uid("card"), { label: "b", board: "beta" })).status, 403);
  const acmePage = await page(http, acme, "synccards", "synccards|board:acme");
  t.deepEqual(acmePage.entities.map((entity) => entity.id), [id]);
  t.is((await as(http, beta).get("/sync/snapshot?collection=synccards&stream=synccards%7Cboard%3Aacme")).status, 403);
  t.is((await as(http, acme).get("/sync/snapshot?collection=synccards")).status, 403, "several streams: the stream must be named");
  t.is((await SyncCard.countDocuments({ board: "beta" })), 0);
});

test("REST writes of a synced model are sequenced too; deletes are tombstones with a seq", async (t) => {
  const { http, signup } = await shared;
  const alice = await signup();
  const id = uid("todo");
  await request(http).post("/sync-todos").set("Authorization", `Bearer ${alice.token}`).send({ _id: id, title: "from REST" }).expect(201);
  await request(http).patch(`/sync-todos/${id}`).set("Authorization", `Bearer ${alice.token}`).send({ done: true }).expect(200);
  await request(http).delete(`/sync-todos/${id}`).set("Authorization", `Bearer ${alice.token}`).expect(204);
  const snapshot = await page(http, alice, "synctodos", `synctodos|owner:${alice.id}`);
  t.deepEqual(snapshot.entities.map((entity) => ({ id: entity.id, seq: entity.seq, deleted: entity.deleted })), [{ id, seq: 3, deleted: true }]);
  t.is(snapshot.frontierSeq, 3);
  // A client of the REST route cannot write the bookkeeping.
  const forged = await request(http).post("/sync-todos").set("Authorization", `Bearer ${alice.token}`).send({ _id: uid(), title: "x", _syncSeq: 1 });
  t.is(forged.status, 400);
});

test("cursor paging: limit, hasMore and cursor walk the stream once, in seq order", async (t) => {
  const { http, signup } = await shared;
  const alice = await signup();
  for (let index = 0; index < 7; index++) await send(http, alice, "synctodos", "create", uid("todo"), { title: `t${index}` });
  const seen: number[] = [];
  let cursor = 0;
  for (let guard = 0; guard < 10; guard++) {
    const response = await as(http, alice).get(`/sync/snapshot?collection=synctodos&cursor=${cursor}&limit=3`).expect(200);
    seen.push(...response.body.entities.map((entity: Entity) => entity.seq));
    cursor = response.body.cursor;
    if (!response.body.hasMore) break;
  }
  t.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7]);
  t.is(cursor, 7);
  const empty = await as(http, alice).get(`/sync/snapshot?collection=synctodos&cursor=7`).expect(200);
  t.like(empty.body, { entities: [], cursor: 7, hasMore: false, frontierSeq: 7 });
});

test("query-level writes on a synced model fail loudly with SYNC_BULK_WRITE_FORBIDDEN", async (t) => {
  await shared;
  for (const run of [
    () => SyncTodo.updateMany({}, { done: true }),
    () => SyncTodo.deleteMany({}),
    () => SyncTodo.updateOne({}, { done: true }),
    () => SyncTodo.findOneAndUpdate({}, { done: true }),
    () => SyncTodo.bulkWrite([{ deleteOne: { filter: {} } }]),
    () => SyncTodo.insertMany([{ _id: uid(), title: "x", ownerId: "u" }]),
  ]) {
    const error = await t.throwsAsync(async () => run());
    t.true(hasErrorCode(error, SyncErrors.BULK_WRITE_FORBIDDEN.code), String(error));
  }
});

test("a save from a stale copy is refused with SYNC_STALE_DOCUMENT, so no seq of the wrong stream is stamped", async (t) => {
  const { http, signup } = await shared;
  const both = await signup("both");
  const id = uid("note");
  await send(http, both, "syncnotes", "create", id, { text: "v1", orgId: "acme" });
  const stale = await SyncNote.findById(id);
  const moved = await send(http, both, "syncnotes", "update", id, { orgId: "beta" }, 1);
  t.is(moved.status, 200);
  stale!.set("text", "from the stale copy");
  const error = await t.throwsAsync(() => stale!.save());
  t.true(hasErrorCode(error, SyncErrors.STALE_DOCUMENT.code), String(error));
  const stored = await SyncNote.findById(id).lean();
  t.like(stored, { text: "v1", orgId: "beta", _syncStream: "syncnotes|tenant:beta" });
});
