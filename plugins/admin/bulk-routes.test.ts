import test from "ava";
import request from "supertest";
import { startTestDatabase, stopTestDatabase, withFailPoint } from "../../hosts/testing.js";
import { auditLogModel } from "./index.js";
import { documentedAnswerProblem } from "../../test/support/documented-answer.js";
import { AdminTestUser, Gadget, adminTestApp, testAdminOptions } from "../../test/support/admin-test-app.js";

test.after.always(() => stopTestDatabase());

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

// Serial: the fail point below is server-wide.
test.serial("a bulk update giving several records one unique value is refused before any write", async (t) => {
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), testAdminOptions({ basePath: "/bulk-unique" }));
  const admin = await app.user({ roles: ["full"] });
  const first = await app.user();
  const second = await app.user();
  const before = await AdminTestUser.find({ _id: { $in: [first.id, second.id] } }).sort({ _id: 1 }).lean();

  const response = await request(app.http)
    .post("/bulk-unique/users/bulk-update")
    .set(auth(admin.token))
    .send({ ids: [first.id, second.id], data: { email: "Shared@Example.com" } })
    .expect(409);
  t.is(response.body.errors[0].code, "DATABASE_DUPLICATE_KEY");
  t.deepEqual(response.body.errors[0].meta, { fields: ["email"] });
  const document = (await request(app.http).get("/openapi.json").expect(200)).body;
  t.is(documentedAnswerProblem(document, "post", "/bulk-unique/users/bulk-update", response), undefined);
  // Nothing written (the first record's email was changed before the second save failed), nothing audited.
  t.deepEqual(await AdminTestUser.find({ _id: { $in: [first.id, second.id] } }).sort({ _id: 1 }).lean(), before);
  t.is(await auditLogModel().countDocuments({ recordId: { $in: [first.id, second.id] } }), 0);

  // One record may take the value: a unique field is not refused as such.
  await request(app.http).post("/bulk-unique/users/bulk-update").set(auth(admin.token)).send({ ids: [first.id], data: { email: "Shared@Example.com" } }).expect(200);
  t.is((await AdminTestUser.findById(first.id).lean())?.email, "shared@example.com");
});

test.serial("records written before a bulk write fails part-way are in the audit log", async (t) => {
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), testAdminOptions({ basePath: "/bulk-partial" }));
  const admin = await app.user({ roles: ["full"] });
  const ids = (await Gadget.create([{ title: "one" }, { title: "two" }, { title: "three" }])).map((doc) => String(doc._id));
  const database = await startTestDatabase();

  // The first save goes through; every later update of a gadget fails, as a lost database would.
  const failed = await withFailPoint(
    database.uri,
    { mode: { skip: 1 }, data: { failCommands: ["update"], errorCode: 2, namespace: `${database.dbName}.${Gadget.collection.collectionName}` } },
    () => request(app.http).post("/bulk-partial/gadgets/bulk-update").set(auth(admin.token)).send({ ids, data: { note: "partly" } }),
  );
  t.true(failed.status >= 400, String(failed.status));
  t.is(await Gadget.countDocuments({ _id: { $in: ids }, note: "partly" }), 1);
  const entries = await auditLogModel().find({ recordId: { $in: ids } }).lean();
  t.deepEqual(entries.map((entry) => [entry.recordId, entry.action, entry.bulk, entry.fields]), [[ids[0], "update", true, ["note"]]]);
});

test("concurrent bulk deletes of the same records: each record is deleted and audited once; the other requests list it 404", async (t) => {
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), testAdminOptions({ basePath: "/bulk-race" }));
  const admin = await app.user({ roles: ["full"] });
  // Gadgets are soft-deleted, users deleted for good: both ways of deleting.
  const gadgets = (await Gadget.create([{ title: "one" }, { title: "two" }])).map((doc) => String(doc._id));
  const users = [(await app.user()).id, (await app.user()).id];
  for (const [resource, ids] of [["gadgets", gadgets], ["users", users]] as const) {
    const answers = await Promise.all(Array.from({ length: 10 }, () => request(app.http).post(`/bulk-race/${resource}/bulk-delete`).set(auth(admin.token)).send({ ids })));
    const refused = answers.filter((answer) => answer.status !== 200 && answer.status !== 403);
    t.deepEqual(refused.map((answer) => answer.status), [], `${resource}: no 5xx or other failure`);
    for (const id of ids) {
      const lines = answers.filter((answer) => answer.status === 200).map((answer) => (answer.body.data.results as Array<{ id: string; status: number; code?: string }>).find((line) => line.id === id)!);
      t.is(lines.filter((line) => line.status === 204).length, 1, `${resource} ${id}: one request deleted it`);
      t.true(lines.every((line) => line.status === 204 || (line.status === 404 && line.code === "REST_NOT_FOUND")));
      t.is(await auditLogModel().countDocuments({ recordId: id, action: "delete" }), 1, `${resource} ${id}: audited once`);
    }
    const counted = answers.filter((answer) => answer.status === 200).reduce((sum, answer) => sum + (answer.body.data.count as number), 0);
    t.is(counted, ids.length, `${resource}: count says how many records each request deleted`);
  }
});

test("bulk updates racing PATCHes of the same array field all apply: a record changed since it was loaded is updated from a fresh copy", async (t) => {
  const app = await adminTestApp("SvcApp", (fn) => t.teardown(fn), testAdminOptions({ basePath: "/bulk-version" }));
  const admin = await app.user({ roles: ["full"] });
  const ids = (await Gadget.create(["one", "two", "three"].map((title) => ({ title, tags: ["a"], ownerId: admin.id })))).map((doc) => String(doc._id));
  const answers = await Promise.all([
    ...Array.from({ length: 5 }, (_, index) => request(app.http).post("/bulk-version/gadgets/bulk-update").set(auth(admin.token)).send({ ids, data: { tags: [`bulk-${index}`] } })),
    ...Array.from({ length: 15 }, (_, index) => request(app.http).patch(`/gadgets/${ids[index % ids.length]}`).set(auth(admin.token)).send({ tags: [`patch-${index}`] })),
  ]);
  const failed = answers.filter((answer) => answer.status !== 200);
  t.deepEqual(failed.map((answer) => [answer.status, answer.body.errors?.[0]?.code]), []);
  for (const answer of answers.slice(0, 5)) t.is(answer.body.data.count, ids.length);
  t.is(await auditLogModel().countDocuments({ recordId: { $in: ids }, action: "update", bulk: true }), 5 * ids.length);
});
