import test from "ava";
import { stopTestDatabase } from "../../hosts/testing.js";
import { as, hookCalls, SyncTodo, syncTestApp, uid, type SyncTestApp } from "../../test/support/sync-test-app.js";
import { ValidationErrors } from "../validation/index.js";

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

const mutate = (collection: string, operation: string, id: string, data?: Record<string, unknown>, baseVersion?: number) => ({
  mutationId: uid("m"),
  collection,
  operation,
  id,
  ...(data ? { data } : {}),
  ...(baseVersion !== undefined ? { baseVersion } : {}),
});

test("every route answers 401 without a token", async (t) => {
  const { http } = await shared;
  for (const path of ["/sync/snapshot?collection=synctodos", "/sync/streams", "/sync/entities?collection=synctodos&ids=a", "/sync/key"]) {
    const response = await as(http).get(path);
    t.is(response.status, 401, path);
    t.is(response.body.errors[0].code, "HTTP_UNAUTHENTICATED");
  }
  for (const path of ["/sync/mutate", "/sync/mutate/batch"]) t.is((await as(http).post(path).send({})).status, 401, path);
});

test("streams lists the caller's stream of every synced collection", async (t) => {
  const { http, signup } = await shared;
  const user = await signup("acme");
  const { body } = await as(http, user).get("/sync/streams").expect(200);
  t.deepEqual(body.streams, [
    { collection: "synctodos", stream: `synctodos|owner:${user.id}` },
    { collection: "synctasks", stream: `synctasks|owner:${user.id}` },
    { collection: "syncnotes", stream: "syncnotes|tenant:acme" },
    { collection: "syncnews", stream: "syncnews|all" },
    // A custom scope's members are every scope key getUserScopes gives.
    { collection: "synccards", stream: "synccards|tenant:acme" },
    { collection: "synccards", stream: "synccards|board:acme" },
  ]);
});

test("key: 32 random bytes per user, created once", async (t) => {
  const { http, signup } = await shared;
  const [alice, bob] = [await signup(), await signup()];
  const first = (await as(http, alice).get("/sync/key").expect(200)).body.keyMaterial as string;
  t.is(Buffer.from(first, "base64").length, 32);
  t.is((await as(http, alice).get("/sync/key").expect(200)).body.keyMaterial, first);
  t.not((await as(http, bob).get("/sync/key").expect(200)).body.keyMaterial, first);
});

test("update and delete: baseVersion must be the current seq; a stale one is a 409 conflict with the server's entity", async (t) => {
  const { http, signup } = await shared;
  const alice = await signup();
  const id = uid("todo");
  await as(http, alice).post("/sync/mutate").send(mutate("synctodos", "create", id, { title: "a" })).expect(200);
  const updated = await as(http, alice).post("/sync/mutate").send(mutate("synctodos", "update", id, { title: "b", done: true }, 1)).expect(200);
  t.is(updated.body.ack.seq, 2);
  const stale = await as(http, alice).post("/sync/mutate").send(mutate("synctodos", "update", id, { title: "c" }, 1)).expect(409);
  t.like(stale.body.nack, { code: "conflict", serverSeq: 2, serverDeleted: false, serverDoc: { id, title: "b", done: true } });
  const removed = await as(http, alice).post("/sync/mutate").send(mutate("synctodos", "delete", id, undefined, 2)).expect(200);
  t.is(removed.body.ack.seq, 3);
  const afterDelete = await as(http, alice).post("/sync/mutate").send(mutate("synctodos", "update", id, { title: "d" }, 2)).expect(409);
  t.like(afterDelete.body.nack, { code: "conflict", serverSeq: 3, serverDeleted: true });
  const page = await as(http, alice).get("/sync/snapshot?collection=synctodos").expect(200);
  t.like(page.body.entities.find((entity: { id: string }) => entity.id === id), { seq: 3, deleted: true, data: { title: "b" } });
  t.is((await SyncTodo.findById(id).setOptions({}).where({ deleted: true }).lean())?.title, "b");
});

test("a replayed mutationId answers the original ack and applies nothing twice", async (t) => {
  const { http, signup } = await shared;
  const alice = await signup();
  const id = uid("todo");
  const body = mutate("synctodos", "create", id, { title: "once" });
  const first = await as(http, alice).post("/sync/mutate").send(body).expect(200);
  const again = await as(http, alice).post("/sync/mutate").send(body).expect(200);
  t.deepEqual(again.body, first.body);
  const concurrent = await Promise.all([1, 2, 3].map(() => as(http, alice).post("/sync/mutate").send(mutate("synctodos", "update", id, { done: true }, 1)).then((r) => r)));
  t.deepEqual(concurrent.map((r) => r.status).sort(), [200, 409, 409]);
  const update = mutate("synctodos", "update", id, { title: "twice?" }, 2);
  const results = await Promise.all([1, 2, 3].map(() => as(http, alice).post("/sync/mutate").send(update)));
  t.deepEqual(results.map((r) => r.status), [200, 200, 200]);
  t.true(results.every((r) => r.body.ack.seq === 3));
  const bob = await signup();
  const stolen = await as(http, bob).post("/sync/mutate").send(body).expect(403);
  t.is(stolen.body.nack.code, "forbidden");
});

test("batch: strict order, stops at the first non-ack, later entries not attempted", async (t) => {
  const { http, signup } = await shared;
  const alice = await signup();
  const [a, b, c] = [uid("todo"), uid("todo"), uid("todo")];
  const entries = [
    mutate("synctodos", "create", a, { title: "a" }),
    mutate("synctodos", "update", a, { title: "a2" }, 1),
    mutate("synctodos", "create", b, { title: 5 }),
    mutate("synctodos", "create", c, { title: "c" }),
  ];
  const { body } = await as(http, alice).post("/sync/mutate/batch").send({ mutations: entries }).expect(200);
  t.is(body.results.length, 4);
  t.like(body.results[0], { ack: { id: a, seq: 1 } });
  t.like(body.results[1], { ack: { id: a, seq: 2 } });
  t.like(body.results[2], { nack: { code: "validation", mutationId: entries[2]!.mutationId } });
  t.deepEqual(body.results[3], { notAttempted: { mutationId: entries[3]!.mutationId } });
  t.is(await SyncTodo.countDocuments({ _id: { $in: [b, c] } }), 0);
  const tooMany = await as(http, alice).post("/sync/mutate/batch").send({ mutations: Array.from({ length: 101 }, () => mutate("synctodos", "create", uid("todo"), { title: "x" })) });
  t.is(tooMany.status, 400);
  t.is(await SyncTodo.countDocuments({ ownerId: alice.id }), 1);
});

test("nack codes over HTTP: validation 422, forbidden 403, not_found 404, conflict 409, error 500", async (t) => {
  const { http, signup } = await shared;
  const alice = await signup();
  const send = (body: unknown) => as(http, alice).post("/sync/mutate").send(body as object);
  t.is((await send(mutate("synctodos", "create", uid(), { title: 5 }))).body.nack.code, "validation");
  t.is((await send(mutate("synctodos", "create", uid(), { title: "x", extra: 1 }))).status, 422);
  t.is((await send(mutate("synctodos", "create", uid(), { title: "x", ownerId: "someone" }))).status, 422);
  t.is((await send(mutate("synctodos", "create", uid(), { title: "x", _syncSeq: 99 }))).status, 422);
  const operator = await send({ ...mutate("synctodos", "create", uid(), { title: { $gt: "" } }) });
  t.is(operator.status, 400, "a $ key refuses the request, as on every body route");
  t.is(operator.body.errors[0].code, "VALIDATION_OPERATOR_IN_BODY");
  const refused = await send(mutate("synctodos", "create", uid(), { title: 5 }));
  t.like(refused.body, { nack: { code: "validation" }, errors: [{ status: "422", code: "SYNC_MUTATION_INVALID" }] });
  t.is(typeof refused.body.requestId, "string");
  t.is((await send({ mutationId: 5, collection: "synctodos", operation: "create" })).status, 422);
  t.is((await send({ ...mutate("synctodos", "drop", uid()) })).status, 422);
  t.is((await send(mutate("synctodos", "update", uid(), { title: "x" }))).status, 422, "baseVersion is required");
  t.is((await send(mutate("synctodos", "create", uid(), { title: "refused by hook" }))).status, 403);
  t.is((await send(mutate("synctodos", "create", uid(), { title: "server trouble" }))).status, 500);
  t.is((await send(mutate("notacollection", "create", uid(), { title: "x" }))).status, 404);
  t.is((await send(mutate("synctodos", "update", uid(), { title: "x" }, 1))).status, 404);
  t.is((await send(mutate("syncnews", "create", uid(), { headline: "only admins" }))).status, 403);
  const id = uid("todo");
  await send(mutate("synctodos", "create", id, { title: "x" })).expect(200);
  t.is((await send(mutate("synctodos", "update", id, { title: "rejected title" }, 1))).status, 422, "a hook that throws is a validation nack");
  t.is((await send(mutate("synctodos", "create", id, { title: "again" }))).status, 409, "creating an existing id is a conflict");
  t.is(await SyncTodo.countDocuments({ ownerId: alice.id }), 1);
  t.is((await SyncTodo.findById(id).lean())?.title, "x");
});

test("hostile input: other users' entities, foreign streams, huge payloads, malformed queries", async (t) => {
  const { http, signup } = await shared;
  const [alice, mallory] = [await signup(), await signup()];
  const id = uid("todo");
  await as(http, alice).post("/sync/mutate").send(mutate("synctodos", "create", id, { title: "mine" })).expect(200);
  const update = await as(http, mallory).post("/sync/mutate").send(mutate("synctodos", "update", id, { title: "pwned" }, 1));
  t.is(update.status, 404, "another user's entity does not exist for them");
  t.is((await as(http, mallory).post("/sync/mutate").send(mutate("synctodos", "delete", id, undefined, 1))).status, 404);
  t.is((await as(http, mallory).post("/sync/mutate").send(mutate("synctodos", "create", id, { title: "take over" }))).status, 403);
  t.is((await SyncTodo.findById(id).lean())?.title, "mine");
  // Foreign streams: a snapshot of someone else's stream, a task assigned into it, a note into another tenant.
  t.is((await as(http, mallory).get(`/sync/snapshot?collection=synctodos&stream=${encodeURIComponent(`synctodos|owner:${alice.id}`)}`)).status, 403);
  t.is((await as(http, mallory).post("/sync/mutate").send(mutate("synctasks", "create", uid(), { title: "x", assigneeId: alice.id }))).status, 403);
  t.is((await as(http, mallory).post("/sync/mutate").send(mutate("syncnotes", "create", uid(), { text: "x", orgId: "acme" }))).status, 403);
  t.is((await as(http, mallory).get("/sync/entities?collection=synctodos&ids=" + id).expect(200)).body.entities.length, 0);
  t.is((await as(http, mallory).get("/sync/snapshot?collection=nope")).status, 404);
  t.is((await as(http, mallory).get("/sync/snapshot?collection[$gt]=a")).status, 400);
  t.is((await as(http, mallory).get("/sync/snapshot?collection=synctodos&limit=1001")).status, 400);
  t.is((await as(http, mallory).get("/sync/snapshot?collection=synctodos&cursor=-1")).status, 400);
  t.is((await as(http, mallory).get("/sync/entities?collection=synctodos&ids=a%24b")).status, 400);
  // More than 100 distinct ids is refused, never answered for the first 100 only.
  const tooMany = await as(http, mallory).get(`/sync/entities?collection=synctodos&ids=${Array.from({ length: 101 }, (_, index) => `id${index}`).join(",")}`);
  t.is(tooMany.status, 400);
  t.is(tooMany.body.errors[0].code, ValidationErrors.INVALID_QUERY.code);
  t.is((await as(http, mallory).get(`/sync/entities?collection=synctodos&ids=${Array.from({ length: 150 }, (_, index) => `id${index % 100}`).join(",")}`)).status, 200, "repeats count once");
  const huge = await as(http, mallory).post("/sync/mutate").send(mutate("synctodos", "create", uid(), { title: "x".repeat(1024 * 1024) }));
  t.true(huge.status === 413 || huge.status === 422, `1 MB body: ${huge.status}`);
  const notJson = await as(http, mallory).post("/sync/mutate").set("Content-Type", "text/plain").send("hello");
  t.true(notJson.status === 415 || notJson.status === 422, `text body: ${notJson.status}`);
  t.is((await as(http, mallory).post("/sync/mutate/batch").send({ mutations: "no" })).status, 400);
  const operatorBatch = await as(http, mallory).post("/sync/mutate/batch").send({ mutations: [mutate("synctodos", "create", uid(), { title: "fine" }), { ...mutate("synctodos", "create", uid()), mutationId: { $gt: "" } }] });
  t.is(operatorBatch.status, 400, "a $ key anywhere refuses the whole batch before any entry is applied");
  t.is(await SyncTodo.countDocuments({ ownerId: mallory.id }), 0);
});
