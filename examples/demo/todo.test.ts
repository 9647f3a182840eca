// The demo's Todo API tested the way docs/testing.md tells a project to test its own: the app's
// plugins on a test app, users and tokens from svc/testing, requests through the real stack.
import test from "ava";
import request from "supertest";
import { createScryptHasher, HttpErrors, IdempotencyErrors, PASSWORD_HASHER } from "../../index.js";
import { bearer, createTestApp, createUser, loginAs, stopTestDatabase } from "../../hosts/testing.js";
import { withDemoPlugins } from "./app.js";
import { TODO_CREATES_PER_MINUTE } from "./todo.js";

test.after.always(() => stopTestDatabase());

async function demo(t: { teardown(fn: () => Promise<void>): void }) {
  const app = withDemoPlugins(await createTestApp()).override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) });
  t.teardown(() => app.stop());
  return { app, http: await app.build() };
}

test("each user sees and changes only their own todos", async (t) => {
  const { app, http } = await demo(t);
  const ada = bearer(await loginAs(app, await createUser(app, { name: "Ada" })));
  const bob = bearer(await loginAs(app, await createUser(app, { name: "Bob" })));

  const created = await request(http).post("/todos").set(ada).send({ title: "write the tests", tags: ["docs"] }).expect(201);
  const id = created.body.data.id as string;

  const mine = await request(http).get("/todos").set(ada).expect(200);
  t.deepEqual(mine.body.data.map((todo: { id: string }) => todo.id), [id]);
  // A screen showing titles only asks for them.
  const titles = await request(http).get("/todos?fields=title").set(ada).expect(200);
  t.deepEqual(titles.body.data, [{ id, _id: id, title: "write the tests" }]);
  const theirs = await request(http).get("/todos").set(bob).expect(200);
  t.deepEqual(theirs.body.data, []);
  await request(http).patch(`/todos/${id}`).set(bob).send({ done: true }).expect(404);
  await request(http).patch(`/todos/${id}`).set(ada).send({ done: true }).expect(200);
});

test("a runaway client is throttled: each user may create so many todos a minute", async (t) => {
  const { app, http } = await demo(t);
  const ada = bearer(await loginAs(app, await createUser(app, { name: "Ada" })));
  const created = await Promise.all(Array.from({ length: TODO_CREATES_PER_MINUTE }, (_, i) => request(http).post("/todos").set(ada).send({ title: `todo ${i}` })));
  t.deepEqual([...new Set(created.map((response) => response.status))], [201]);
  const refused = await request(http).post("/todos").set(ada).send({ title: "one too many" }).expect(429);
  t.is(refused.body.errors[0].code, HttpErrors.RATE_LIMITED.code);
  t.true(Number(refused.headers["retry-after"]) >= 1);
  // Reading and changing go on, and other users have budgets of their own.
  await request(http).patch(`/todos/${created[0]!.body.data.id as string}`).set(ada).send({ done: true }).expect(200);
  const bob = bearer(await loginAs(app, await createUser(app, { name: "Bob" })));
  await request(http).post("/todos").set(bob).send({ title: "mine" }).expect(201);
});

test("a create retried with its Idempotency-Key makes one todo, and the retry gets the first answer", async (t) => {
  const { app, http } = await demo(t);
  const ada = bearer(await loginAs(app, await createUser(app, { name: "Ada" })));
  const create = () => request(http).post("/todos").set(ada).set("Idempotency-Key", "5b0c2f0e-retry").send({ title: "sent twice over a bad line" });

  const first = await create().expect(201);
  const retry = await create().expect(201);
  t.is(retry.headers["idempotent-replayed"], "true");
  t.is(retry.body.data.id, first.body.data.id);
  const list = await request(http).get("/todos").set(ada).expect(200);
  t.is(list.body.data.length, 1);
  // The key went with that todo: another one under it is refused, not made.
  const reused = await request(http).post("/todos").set(ada).set("Idempotency-Key", "5b0c2f0e-retry").send({ title: "another todo" }).expect(422);
  t.is(reused.body.errors[0].code, IdempotencyErrors.KEY_REUSED.code);
});

test("anonymous requests are refused", async (t) => {
  const { http } = await demo(t);
  const response = await request(http).get("/todos").expect(401);
  t.is(response.body.errors[0].code, HttpErrors.UNAUTHENTICATED.code);
});

test("the demo's OpenAPI document gives every operation its own operationId and one declared tag", async (t) => {
  const { http } = await demo(t);
  const document = (await request(http).get("/openapi.json").expect(200)).body as {
    paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
    tags: Array<{ name: string }>;
  };
  const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
  const ids = operations.map((operation) => operation.operationId);
  t.true(ids.every((id) => typeof id === "string" && id.length > 0));
  t.is(new Set(ids).size, ids.length);
  const declared = new Set(document.tags.map((tag) => tag.name));
  t.true(operations.every((operation) => operation.tags?.length === 1 && declared.has(operation.tags[0]!)));
});
