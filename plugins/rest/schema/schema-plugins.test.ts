import test from "ava";
import mongoose from "mongoose";
import { startTestDatabase, stopTestDatabase } from "../../../hosts/testing.js";
import { RestErrors } from "../errors.js";
import { fieldsWithoutDescription } from "../field-descriptions.js";
import { checkModelsStrict } from "./check-models-strict.js";
import { createdUpdatedPlugin, type CreatedUpdatedDocument } from "./created-updated-plugin.js";
import { DateOnly, registerDateOnlyType } from "./date-only.js";
import { defaultPlugins } from "./default-plugins.js";
import { findExactlyOne, type FindExactlyOneStatics } from "./find-exactly-one.js";
import { findOneOrNone, type FindOneOrNoneStatics } from "./find-one-or-none.js";
import { isDeletedPlugin, usesSoftDelete } from "./is-deleted-plugin.js";
import { isValidObjectId } from "./object-id.js";
import { upsertPlugin, type UpsertStatics } from "./upsert-plugin.js";

registerDateOnlyType();
const strict = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };

// Schema plugins run against the database: connect mongoose to this process's test database.
let connection: mongoose.Connection;
test.before(async () => {
  const database = await startTestDatabase();
  connection = await mongoose.createConnection(database.uri, { dbName: `${database.dbName}_schema_plugins` }).asPromise();
});
test.after.always(async () => {
  // stopTestDatabase drops only the process's own database: on a shared real MongoDB this one
  // would be left behind by every run.
  await connection?.dropDatabase();
  await connection?.close();
  await stopTestDatabase();
});

interface Thing {
  key: string;
  value?: number;
  group?: string;
}
function thingModel(name: string) {
  const schema = new mongoose.Schema<Thing>(
    { key: { type: String, description: "k" }, value: { type: Number, description: "v" }, group: { type: String, description: "g" } },
    strict,
  );
  schema.plugin(findExactlyOne);
  schema.plugin(findOneOrNone);
  schema.plugin(upsertPlugin);
  type Statics = FindExactlyOneStatics<mongoose.HydratedDocument<Thing>> & FindOneOrNoneStatics<mongoose.HydratedDocument<Thing>> & UpsertStatics<mongoose.HydratedDocument<Thing>>;
  return connection.model<Thing, mongoose.Model<Thing> & Statics>(name, schema);
}

test("findExactlyOne: the match, 404 when none, 500 when several", async (t) => {
  const Thing = thingModel("ExactThing");
  await Thing.create([{ key: "one" }, { key: "two" }, { key: "two" }]);
  t.is((await Thing.findExactlyOne({ key: "one" })).key, "one");
  await t.throwsAsync(() => Thing.findExactlyOne({ key: "none" }), { code: RestErrors.NO_MATCH.code });
  const several = await t.throwsAsync(() => Thing.findExactlyOne({ key: "two" }));
  t.is((several as { status?: number }).status, 500);
});

test("findOneOrNone: the match, null when none, 500 when several", async (t) => {
  const Thing = thingModel("OneOrNoneThing");
  await Thing.create([{ key: "one" }, { key: "two" }, { key: "two" }]);
  t.is((await Thing.findOneOrNone({ key: "one" }))?.key, "one");
  t.is(await Thing.findOneOrNone({ key: "none" }), null);
  await t.throwsAsync(() => Thing.findOneOrNone({ key: "two" }), { code: RestErrors.SEVERAL_MATCHES.code });
});

test("upsert creates, then updates the one match, and refuses several", async (t) => {
  const Thing = thingModel("UpsertThing");
  const created = await Thing.upsert({ key: "a", value: { $gt: 0 } }, { value: 1 });
  t.is(created.key, "a");
  t.is(created.value, 1);
  const updated = await Thing.upsert({ key: "a" }, { value: 2 });
  t.is(String(updated._id), String(created._id));
  t.is(await Thing.countDocuments({ key: "a" }), 1);
  t.is((await Thing.findOne({ key: "a" }).lean())?.value, 2);
  await Thing.create([{ key: "b" }, { key: "b" }]);
  await t.throwsAsync(() => Thing.upsert({ key: "b" }, { value: 3 }), { code: RestErrors.SEVERAL_MATCHES.code });
});

test("DateOnly stores and reads UTC midnight, queries with $gt/$gte/$lt/$lte, and rejects invalid dates", async (t) => {
  const schema = new mongoose.Schema({ day: { type: DateOnly, description: "A day" }, label: { type: String, description: "l" } }, strict);
  const Day = connection.model("DateOnlyDay", schema);
  const saved = await Day.create({ day: "2024-05-01T17:30:00-03:00", label: "a" });
  t.is((saved.get("day") as Date).toISOString(), "2024-05-01T00:00:00.000Z");
  const raw = await Day.collection.findOne({ _id: saved._id });
  t.is((raw?.day as Date).toISOString(), "2024-05-01T00:00:00.000Z");
  // Written by something else with a time of day: read back as midnight.
  const foreign = await Day.collection.insertOne({ day: new Date("2024-05-03T12:00:00Z"), label: "b" });
  const read = await Day.findById(foreign.insertedId);
  t.is((read?.get("day") as Date).toISOString(), "2024-05-03T00:00:00.000Z");

  const labels = async (filter: Record<string, unknown>) => (await Day.find(filter).sort({ label: 1 }).lean()).map((doc) => doc.label);
  t.deepEqual(await labels({ day: { $gte: "2024-05-01T23:00:00Z" } }), ["a", "b"]);
  t.deepEqual(await labels({ day: { $gt: "2024-05-01T08:00:00Z" } }), ["b"]);
  t.deepEqual(await labels({ day: { $lt: "2024-05-03T08:00:00Z" } }), ["a"]);
  t.deepEqual(await labels({ day: { $lte: "2024-05-01" } }), ["a"]);
  const error = await t.throwsAsync(() => Day.create({ day: "not a date" }));
  t.is(error?.name, "ValidationError");
  t.is((error as mongoose.Error.ValidationError).errors.day?.name, "CastError");
  await t.throwsAsync(() => Day.find({ day: { $gt: "nope" } }).exec(), { name: "CastError" });
});

test("createdUpdatedPlugin stamps saves and update queries, and can be skipped once", async (t) => {
  const schema = new mongoose.Schema({ label: { type: String, description: "l" } }, strict);
  schema.plugin(createdUpdatedPlugin);
  const Stamped = connection.model("CreatedUpdatedStamped", schema);
  const doc = await Stamped.create({ label: "a" });
  const created = doc.get("created") as Date;
  t.true(created instanceof Date);
  t.is((doc.get("updated") as Date).getTime(), created.getTime());

  const stale = new Date("2000-01-01T00:00:00Z");
  const reset = async () => Stamped.collection.updateOne({ _id: doc._id }, { $set: { updated: stale } });
  const updatedAt = async () => ((await Stamped.collection.findOne({ _id: doc._id }))?.updated as Date).getTime();

  for (const run of [
    () => Stamped.updateOne({ _id: doc._id }, { label: "b" }).exec(),
    () => Stamped.updateMany({ _id: doc._id }, { $set: { label: "c" } }).exec(),
    () => Stamped.findOneAndUpdate({ _id: doc._id }, { label: "d" }).exec(),
  ]) {
    await reset();
    await run();
    t.true((await updatedAt()) > stale.getTime());
  }
  await reset();
  const fresh = (await Stamped.findById(doc._id))!;
  fresh.set("label", "e");
  await fresh.save();
  t.true((await updatedAt()) > stale.getTime());
  t.is(((await Stamped.collection.findOne({ _id: doc._id }))?.created as Date).getTime(), created.getTime());

  await reset();
  const skipped = (await Stamped.findById(doc._id))! as mongoose.HydratedDocument<unknown> & CreatedUpdatedDocument;
  skipped.set("label", "f");
  skipped.disableCreatedUpdatedPlugin = true;
  await skipped.save();
  t.is(await updatedAt(), stale.getTime());
  t.false(skipped.disableCreatedUpdatedPlugin);
});

test("isDeletedPlugin hides deleted records from find, findOne and countDocuments unless the query names deleted", async (t) => {
  const schema = new mongoose.Schema({ label: { type: String, description: "l" } }, strict);
  schema.plugin(isDeletedPlugin);
  const Soft = connection.model("IsDeletedSoft", schema);
  t.true(usesSoftDelete(schema));
  const [kept, gone] = await Soft.create([{ label: "kept" }, { label: "gone" }]);
  t.is(kept!.get("deleted"), false);
  await Soft.updateOne({ _id: gone!._id }, { deleted: true });
  t.deepEqual((await Soft.find().lean()).map((doc) => doc.label), ["kept"]);
  t.is(await Soft.findOne({ label: "gone" }), null);
  t.is(await Soft.findById(gone!._id), null);
  t.is(await Soft.countDocuments(), 1);
  t.is((await Soft.findOne({ label: "gone", deleted: true }))?.get("label"), "gone");
  t.is(await Soft.countDocuments({ deleted: { $in: [true, false] } }), 2);

  const drafts = new mongoose.Schema({ label: { type: String, description: "l" } }, strict);
  drafts.plugin(isDeletedPlugin, true);
  const Draft = connection.model("IsDeletedDraft", drafts);
  t.is((await Draft.create({ label: "x" })).get("deleted"), true);
});

test("the default bundle applies timestamps, soft delete and the finders", (t) => {
  const schema = new mongoose.Schema({ label: { type: String, description: "l" } }, strict);
  schema.plugin(defaultPlugins);
  t.truthy(schema.path("created"));
  t.truthy(schema.path("updated"));
  t.truthy(schema.path("deleted"));
  t.is(typeof schema.statics.findExactlyOne, "function");
  t.is(typeof schema.statics.findOneOrNone, "function");
  t.deepEqual(fieldsWithoutDescription(schema), []);
});

test("checkModelsStrict lists every offending model in one error", (t) => {
  const good = connection.model("StrictGood", new mongoose.Schema({ a: String }, strict));
  const lax = connection.model("StrictLax", new mongoose.Schema({ a: String }, { ...strict, strict: false }));
  const noVirtuals = connection.model("StrictNoVirtuals", new mongoose.Schema({ a: String }, { strict: true }));
  t.notThrows(() => checkModelsStrict([good]));
  const error = t.throws(() => checkModelsStrict([good, lax, noVirtuals]), { code: RestErrors.MODELS_NOT_STRICT.code });
  t.regex(error!.message, /StrictLax/);
  t.regex(error!.message, /StrictNoVirtuals/);
  t.notRegex(error!.message, /StrictGood/);
});

test("isValidObjectId accepts exactly 24 hex characters", (t) => {
  t.true(isValidObjectId("65f1c0ffee00000000000001"));
  t.true(isValidObjectId("65F1C0FFEE00000000000001"));
  t.true(isValidObjectId(new mongoose.Types.ObjectId()));
  for (const value of ["aaaaaaaaaaaa", "65f1c0ffee0000000000000", "65f1c0ffee000000000000011", "zzzzzzzzzzzzzzzzzzzzzzzz", "", 123, null, undefined, {}]) {
    t.false(isValidObjectId(value), String(value));
  }
});

test("fieldsWithoutDescription names undocumented fields, nested ones included", (t) => {
  const schema = new mongoose.Schema({ a: { type: String, description: "documented" }, b: Number, nested: { c: String } });
  t.deepEqual(fieldsWithoutDescription(schema), ["b", "nested.c"]);
});
