import test from "ava";
import mongoose from "mongoose";
import { DatabaseErrors } from "../../adapters/database/errors.js";
import { stopTestDatabase } from "../../hosts/testing.js";
import { as, buildRestApp, spec } from "../../test/support/rest-hosts.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";
import { RestErrors } from "./errors.js";
import type { ModelRouterOptions } from "./model-router-options.js";
import { OwnerQueryFilter } from "./owner-query-filter.js";
import { Permissions } from "./permissions.js";
import { createdUpdatedPlugin } from "./schema/created-updated-plugin.js";
import { defaultPlugins } from "./schema/default-plugins.js";

// Bursts of real requests at one record: what sequential tests miss. Each burst is fired at once
// (Promise.all), so requests load the record before others have saved it.
test.after.always(() => stopTestDatabase());

const BURST = 20;
const strict = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };

interface LabelFields {
  slug: string;
  title?: string;
  tags?: string[];
  ownerId?: mongoose.Types.ObjectId;
}

function labelSchema() {
  return new mongoose.Schema<LabelFields>(
    {
      slug: { type: String, required: true, unique: true, description: "Unique name" },
      title: { type: String, description: "Shown name" },
      tags: { type: [String], description: "Labels" },
      ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Owner" },
    },
    strict,
  );
}
const softSchema = labelSchema();
softSchema.plugin(defaultPlugins);
const SoftLabel = mongoose.model("ConcurrentSoftLabel", softSchema);
const hardSchema = labelSchema();
hardSchema.plugin(createdUpdatedPlugin);
const HardLabel = mongoose.model("ConcurrentHardLabel", hardSchema);
// Every save of this model loses to a writer elsewhere (another process) that changes the record first.
const contestedSchema = labelSchema();
contestedSchema.pre("save", async function otherProcessWrites() {
  if (!this.isNew) await Contested.collection.updateOne({ _id: this._id }, { $inc: { __v: 1, otherWrites: 1 } });
});
const Contested = mongoose.model("ConcurrentContestedLabel", contestedSchema);
const MODELS = [
  { kind: "soft delete", path: "/soft", model: SoftLabel },
  { kind: "hard delete", path: "/hard", model: HardLabel },
] as const;

const owner = [Permissions.IsOwner];
const tokens = new TokenMap();

async function appFor(t: { teardown(fn: () => Promise<void>): void }, hooks: Partial<ModelRouterOptions<LabelFields>> = {}) {
  const postDeletes: string[] = [];
  const options: ModelRouterOptions<LabelFields> = {
    permissions: { list: owner, create: owner, read: owner, update: owner, delete: owner },
    queryFilter: OwnerQueryFilter,
    postDelete: (doc) => void postDeletes.push(String(doc._id)),
    ...hooks,
  };
  const app = await buildRestApp("SvcApp", MODELS.map(({ path, model }) => spec(path, model, options)), [tokens.plugin()]);
  t.teardown(() => app.stop());
  // mongoose builds the unique index in the background once connected; the app does not wait for
  // it, so a burst right after start could beat it (a deployed app finds its indexes built).
  await Promise.all(MODELS.map(({ model }) => model.init()));
  return { http: app.http, postDeletes };
}

function count(responses: readonly { status: number }[], status: number): number {
  return responses.filter((response) => response.status === status).length;
}

test("creates of one unique value at once: one 201, the rest 409 DATABASE_DUPLICATE_KEY", async (t) => {
  const { http } = await appFor(t);
  const api = as(http, tokens.user("creator").auth);
  const responses = await Promise.all(Array.from({ length: BURST }, (_, index) => api.post("/hard", { slug: "same", title: `${index}` })));
  t.is(count(responses, 201), 1);
  for (const response of responses.filter((r) => r.status !== 201)) {
    t.is(response.status, 409);
    t.is(response.body.errors[0].code, DatabaseErrors.DUPLICATE_KEY.code);
    t.deepEqual(response.body.errors[0].meta, { fields: ["slug"] });
  }
  t.is(await HardLabel.countDocuments({ slug: "same" }), 1);
});

for (const { kind, path, model } of MODELS) {
  test(`${kind}: PATCHes of an array field at once all apply, one after another`, async (t) => {
    const { http } = await appFor(t);
    const api = as(http, tokens.user(`tagger-${path}`).auth);
    const id = (await api.post(path, { slug: `tags-${path}`, tags: ["first"] }).expect(201)).body.data.id;
    const responses = await Promise.all(Array.from({ length: BURST }, (_, index) => api.patch(`${path}/${id}`, { tags: [`tag ${index}`] })));
    t.is(count(responses, 200), BURST, responses.map((r) => r.status).join(","));
    const stored = await model.collection.findOne({ _id: new mongoose.Types.ObjectId(id as string) });
    // Last writer wins, as with any other field; every write bumped the array's version.
    t.true(responses.some((r) => r.body.data.tags[0] === stored?.tags[0]));
    t.is(stored?.__v, BURST);
  });
}

test("a PATCH of an array that another process changes before each of its saves answers 409 REST_STALE_DOCUMENT after 10 attempts", async (t) => {
  const app = await buildRestApp("SvcApp", [spec("/contested", Contested, { permissions: { create: [Permissions.IsAny], update: [Permissions.IsAny] } })]);
  t.teardown(() => app.stop());
  const id = (await as(app.http).post("/contested", { slug: "contested" }).expect(201)).body.data.id;
  const response = await as(app.http).patch(`/contested/${id}`, { tags: ["mine"] }).expect(409);
  t.is(response.body.errors[0].code, RestErrors.STALE_DOCUMENT.code);
  const stored = await Contested.collection.findOne({ _id: new mongoose.Types.ObjectId(id as string) });
  t.is(stored?.otherWrites, 10);
  t.deepEqual(stored?.tags, []);
});

test("a postDelete hook may save the soft-deleted document again", async (t) => {
  const { http } = await appFor(t, {
    postDelete: async (doc) => {
      doc.set("title", "archived");
      await doc.save();
    },
  });
  const api = as(http, tokens.user("archiver").auth);
  const id = (await api.post("/soft", { slug: "archive-me" }).expect(201)).body.data.id;
  await api.delete(`/soft/${id}`).expect(204);
  t.like(await SoftLabel.collection.findOne({ _id: new mongoose.Types.ObjectId(id as string) }), { deleted: true, title: "archived" });
});

test("PATCHes to a unique value racing a create of it: one wins, the rest 409", async (t) => {
  const { http } = await appFor(t);
  const api = as(http, tokens.user("renamer").auth);
  const ids: string[] = [];
  for (let index = 0; index < 10; index++) ids.push((await api.post("/hard", { slug: `rename-${index}` }).expect(201)).body.data.id);
  const responses = await Promise.all([...ids.map((id) => api.patch(`/hard/${id}`, { slug: "taken" })), api.post("/hard", { slug: "taken" })]);
  t.is(count(responses, 200) + count(responses, 201), 1);
  t.is(count(responses, 409), responses.length - 1);
  t.true(responses.filter((r) => r.status === 409).every((r) => r.body.errors[0].code === DatabaseErrors.DUPLICATE_KEY.code));
  t.is(await HardLabel.countDocuments({ slug: "taken" }), 1);
});

for (const { kind, path, model } of MODELS) {
  test(`${kind}: DELETEs of one record at once: one 204, the rest 404, postDelete once`, async (t) => {
    const { http, postDeletes } = await appFor(t);
    const api = as(http, tokens.user(`deleter-${path}`).auth);
    const id = (await api.post(path, { slug: `delete-${path}` }).expect(201)).body.data.id;
    const responses = await Promise.all(Array.from({ length: BURST }, () => api.delete(`${path}/${id}`)));
    t.is(count(responses, 204), 1);
    t.is(count(responses, 404), BURST - 1);
    t.true(responses.filter((r) => r.status === 404).every((r) => r.body.errors[0].code === RestErrors.NOT_FOUND.code));
    t.deepEqual(postDeletes, [id]);
  });

  test(`${kind}: PATCHes racing a DELETE answer 200 or 404, never 500`, async (t) => {
    const { http } = await appFor(t);
    const api = as(http, tokens.user(`patcher-${path}`).auth);
    const id = (await api.post(path, { slug: `patch-${path}` }).expect(201)).body.data.id;
    const responses = await Promise.all(
      Array.from({ length: BURST }, (_, index) => (index === BURST / 2 ? api.delete(`${path}/${id}`) : api.patch(`${path}/${id}`, { title: `patch ${index}` }))),
    );
    t.is(count(responses, 204), 1);
    t.is(count(responses, 200) + count(responses, 404), BURST - 1, responses.map((r) => r.status).join(","));
    await api.patch(`${path}/${id}`, { title: "after" }).expect(404);
  });

  test(`${kind}: a PATCH that loaded the record before a DELETE and saves after it answers 404 and writes nothing`, async (t) => {
    let patchLoaded!: () => void;
    const loaded = new Promise<void>((resolve) => (patchLoaded = resolve));
    let deleteDone!: () => void;
    const deleted = new Promise<void>((resolve) => (deleteDone = resolve));
    const { http } = await appFor(t, {
      // Holds the PATCH between its load and its save until the DELETE has answered.
      preUpdate: async (body) => {
        patchLoaded();
        await deleted;
        return body;
      },
    });
    const api = as(http, tokens.user(`late-${path}`).auth);
    const id = (await api.post(path, { slug: `late-${path}`, title: "before" }).expect(201)).body.data.id;
    const patch = api.patch(`${path}/${id}`, { title: "late" }).then((response) => response);
    await loaded;
    await api.delete(`${path}/${id}`).expect(204);
    deleteDone();
    const response = await patch;
    t.is(response.status, 404);
    t.is(response.body.errors[0].code, RestErrors.NOT_FOUND.code);
    const stored = await model.collection.findOne({ _id: new mongoose.Types.ObjectId(id as string) });
    if (kind === "hard delete") t.is(stored, null);
    else t.like(stored, { deleted: true, title: "before" });
  });
}
