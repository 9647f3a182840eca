// A synced model router's `throttle` holds for sync mutations too: over HTTP (one mutation or a
// batch) a mutation over budget is a `rate_limited` nack with `retryAfterMs` and nothing is
// written; REST and sync spend one budget; a replay of an applied mutation still gets its ack.
import test from "ava";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { stopTestDatabase } from "../../hosts/testing.js";
import { authTestApp, uniqueEmail } from "../../test/support/auth-test-app.js";
import { isDeletedPlugin, modelRouter, Permissions } from "../rest/index.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import { syncApp, syncPlugin, SyncErrors, type BatchAnswer, type SyncNack } from "./index.js";

test.after.always(() => stopTestDatabase());

const schema = new Schema(
  { _id: { type: String, description: "Client id" }, text: { type: String, required: true, description: "Text" }, ownerId: { type: String, description: "Owner" } },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(isDeletedPlugin);
schema.plugin(syncPlugin);
const Memo = mongoose.model<Record<string, unknown>>("ThrottledMemo", schema);
const signedIn = [Permissions.IsAuthenticated];

let ids = 0;
const uid = (label: string) => `${label}-${process.pid}-${++ids}`;
const create = (text: string, id = uid("memo")) => ({ mutationId: uid("m"), collection: Memo.collection.collectionName, operation: "create", id, data: { text } });

test("mutations over the router's budget are rate_limited nacks, and REST shares the budget", async (t) => {
  const { app, http } = await authTestApp(t, {}, {}, (app) =>
    app
      .register(modelRouter("/throttled-memos", Memo, { permissions: { list: signedIn, read: signedIn, create: signedIn, update: signedIn, delete: signedIn }, sync: { scope: { type: "owner" } }, throttle: { create: "3/minute" } }))
      .register(syncApp()),
  );
  await app.start();
  const signup = await request(http).post("/auth/signup").send({ email: uniqueEmail(), password: "correct horse battery staple" }).expect(201);
  const auth = `Bearer ${signup.body.data.token as string}`;
  const mutate = (body: object) => request(http).post("/sync/mutate").set("Authorization", auth).send(body);

  const first = create("one");
  await mutate(first).expect(200);
  await request(http).post("/throttled-memos").set("Authorization", auth).send({ _id: uid("memo"), text: "over REST" }).expect(201);
  await mutate(create("three")).expect(200);

  const over = create("four");
  const refused = await mutate(over).expect(429);
  const nack = refused.body.nack as SyncNack;
  t.is(nack.code, "rate_limited");
  t.true(nack.retryAfterMs! >= 1000);
  t.is(refused.headers["retry-after"], String(Math.ceil(nack.retryAfterMs! / 1000)));
  t.is(refused.body.errors[0].code, SyncErrors.MUTATION_RATE_LIMITED.code);
  t.is(await Memo.countDocuments({ _id: over.id }), 0);

  // A client resending a mutation it already got applied is answered with its ack, budget or not.
  t.deepEqual((await mutate(first).expect(200)).body.ack.id, first.id);

  const batch = (await request(http).post("/sync/mutate/batch").set("Authorization", auth).send({ mutations: [create("five"), create("six")] }).expect(200)).body as BatchAnswer;
  t.is((batch.results[0] as { nack: SyncNack }).nack.code, "rate_limited");
  t.true("notAttempted" in batch.results[1]!);

  const overRest = await request(http).post("/throttled-memos").set("Authorization", auth).send({ _id: uid("memo"), text: "over REST again" }).expect(429);
  t.is(overRest.body.errors[0].code, HttpErrors.RATE_LIMITED.code);
});
