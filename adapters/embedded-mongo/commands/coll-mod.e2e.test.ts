import test from "ava";
import { MongoServerError } from "mongodb";
import type { Document } from "mongodb";
import mongoose from "mongoose";
import { ErrorCodes, startEmbeddedMongo } from "../index.js";
import { useFileEngine } from "../test-support/file-engine.js";
import { silentLogger } from "../test-support/silent-logger.js";
import { tempDir } from "../test-support/temp-dir.js";

// collMod / create options through the real driver and mongoose: change-stream images, validators, index options.
const shared = useFileEngine(test, "collmod");

type Row = { _id: number } & Document;

test("pre/post images only once changeStreamPreAndPostImages is enabled: whenAvailable gives null before, required fails", async (t) => {
  // KNOWN-ISSUES change streams #2 (fixed): the engine used to give images without the option.
  const db = shared.client.db(shared.freshDb("images"));
  await db.createCollection("c");
  const c = db.collection<Row>("c");
  await c.insertOne({ _id: 1, n: 1 });
  const available = c.watch([], { fullDocument: "whenAvailable", fullDocumentBeforeChange: "whenAvailable" });
  await available.tryNext();
  await c.updateOne({ _id: 1 }, { $set: { n: 2 } });
  const before: Document = await available.next();
  t.is(before["fullDocument"], null);
  t.is(before["fullDocumentBeforeChange"], null);

  const required = c.watch([], { fullDocumentBeforeChange: "required" });
  await required.tryNext();
  await c.deleteOne({ _id: 1 });
  const error = await t.throwsAsync(required.next(), { instanceOf: MongoServerError });
  t.is(error?.code, ErrorCodes.NoMatchingDocument);
  await required.close();
  await available.next(); // the delete

  t.like(await db.command({ collMod: "c", changeStreamPreAndPostImages: { enabled: true } }), { ok: 1 });
  await c.insertOne({ _id: 2, n: 1 });
  await available.next(); // the insert
  await c.updateOne({ _id: 2 }, { $inc: { n: 1 } });
  const after: Document = await available.next();
  t.deepEqual(after["fullDocument"], { _id: 2, n: 2 });
  t.deepEqual(after["fullDocumentBeforeChange"], { _id: 2, n: 1 });
  await available.close();
  const [entry] = await db.listCollections({ name: "c" }).toArray();
  t.deepEqual((entry as Document | undefined)?.["options"], { changeStreamPreAndPostImages: { enabled: true } });

  // Disabling stops recording; create takes the option too.
  await db.command({ collMod: "c", changeStreamPreAndPostImages: { enabled: false } });
  t.deepEqual(((await db.listCollections({ name: "c" }).toArray())[0] as Document | undefined)?.["options"], {});
  await db.createCollection("d", { changeStreamPreAndPostImages: { enabled: true } });
  const d = db.collection<Row>("d");
  await d.insertOne({ _id: 1, n: 1 });
  const stream = d.watch([], { fullDocument: "required" });
  await stream.tryNext();
  await d.updateOne({ _id: 1 }, { $set: { n: 5 } });
  t.deepEqual(((await stream.next()) as Document)["fullDocument"], { _id: 1, n: 5 });
  await stream.close();
});

test("a database stream requiring images and matching only image-enabled collections is not failed by another collection's update", async (t) => {
  // mongod applies the stream's $match on ns/operationType before it looks images up (the sync
  // server's feed relies on it: its bookkeeping collections keep no images).
  const db = shared.client.db(shared.freshDb("images-scope"));
  await db.createCollection("kept", { changeStreamPreAndPostImages: { enabled: true } });
  await db.createCollection("plain");
  await db.collection<Row>("plain").insertOne({ _id: 1, n: 1 });
  const matched = db.watch([{ $match: { "ns.coll": "kept" } }], { fullDocument: "required", fullDocumentBeforeChange: "required" });
  const unmatched = db.watch([], { fullDocument: "required" });
  await matched.tryNext();
  await unmatched.tryNext();
  await db.collection<Row>("plain").updateOne({ _id: 1 }, { $set: { n: 2 } });
  await db.collection<Row>("kept").insertOne({ _id: 1, n: 1 });
  await db.collection<Row>("kept").updateOne({ _id: 1 }, { $set: { n: 2 } });
  t.is(((await matched.next()) as Document)["operationType"], "insert");
  t.like(await matched.next(), { operationType: "update", fullDocument: { _id: 1, n: 2 }, fullDocumentBeforeChange: { _id: 1, n: 1 } });
  await matched.close();
  // Without the $match the plain collection's update is in the stream, and its image is missing.
  const error = await t.throwsAsync(unmatched.next(), { instanceOf: MongoServerError });
  t.is(error?.code, ErrorCodes.NoMatchingDocument);
  await unmatched.close();
});

test("collMod refuses unknown and malformed options as mongod", async (t) => {
  const db = shared.client.db(shared.freshDb("refusals"));
  await db.createCollection("c");
  const code = async (command: Document): Promise<unknown> => (await t.throwsAsync(db.command(command), { instanceOf: MongoServerError }))?.code;
  t.is(await code({ collMod: "c", bogus: 1 }), 40415);
  t.is(await code({ collMod: "c", changeStreamPreAndPostImages: true }), ErrorCodes.TypeMismatch);
  t.is(await code({ collMod: "c", changeStreamPreAndPostImages: { enabled: 1 } }), ErrorCodes.TypeMismatch);
  t.is(await code({ collMod: "c", changeStreamPreAndPostImages: { enabled: true, other: 1 } }), 40415);
  t.is(await code({ collMod: "c", viewOn: "x", pipeline: [] }), ErrorCodes.InvalidOptions);
  t.is(await code({ collMod: "c", validationLevel: "sometimes" }), ErrorCodes.BadValue);
  t.is(await code({ collMod: "missing", validator: {} }), ErrorCodes.NamespaceNotFound);
  t.is(await code({ collMod: "c", index: { name: "_id_", hidden: true } }), ErrorCodes.BadValue);
  t.is(await code({ create: "e", changeStreamPreAndPostImages: { enabled: "yes" } }), ErrorCodes.TypeMismatch);
});

test("$jsonSchema validator: 121 with mongod's errInfo; validationAction warn logs and accepts; moderate keeps invalid documents updatable", async (t) => {
  const warnings: unknown[][] = [];
  const server = await startEmbeddedMongo({ logger: { error() {}, info() {}, debug() {}, warn: (...args: unknown[]) => warnings.push(args) } });
  const client = new (await import("mongodb")).MongoClient(server.uri);
  try {
    const db = client.db("validation");
    const schema = {
      bsonType: "object",
      required: ["name", "age"],
      properties: { name: { bsonType: "string", minLength: 2 }, age: { bsonType: "int", minimum: 0 }, role: { enum: ["admin", "user"] } },
    };
    await db.createCollection("people", { validator: { $jsonSchema: schema } });
    const people = db.collection<Row>("people");
    const error = await t.throwsAsync(people.insertOne({ _id: 1, name: "x", age: -1, role: "boss" }), { instanceOf: MongoServerError });
    t.is(error?.code, ErrorCodes.DocumentValidationFailure);
    t.deepEqual(error?.errInfo, {
      failingDocumentId: 1,
      details: {
        operatorName: "$jsonSchema",
        schemaRulesNotSatisfied: [
          {
            operatorName: "properties",
            propertiesNotSatisfied: [
              { propertyName: "name", details: [{ operatorName: "minLength", specifiedAs: { minLength: 2 }, reason: "specified string length was not satisfied", consideredValue: "x" }] },
              { propertyName: "age", details: [{ operatorName: "minimum", specifiedAs: { minimum: 0 }, reason: "comparison failed", consideredValue: -1 }] },
              { propertyName: "role", details: [{ operatorName: "enum", specifiedAs: { enum: ["admin", "user"] }, reason: "value was not found in enum", consideredValue: "boss" }] },
            ],
          },
        ],
      },
    });
    const missing = await t.throwsAsync(people.insertOne({ _id: 2, age: "ten" }), { instanceOf: MongoServerError });
    t.deepEqual(missing?.errInfo?.["details"]["schemaRulesNotSatisfied"], [
      { operatorName: "required", specifiedAs: { required: ["name", "age"] }, missingProperties: ["name"] },
      {
        operatorName: "properties",
        propertiesNotSatisfied: [
          { propertyName: "age", details: [{ operatorName: "bsonType", specifiedAs: { bsonType: "int" }, reason: "type did not match", consideredValue: "ten", consideredType: "string" }] },
        ],
      },
    ]);

    // An old invalid document (bypassing validation), then moderate: it stays updatable; valid ones must stay valid.
    await people.insertOne({ _id: 3, name: "z" }, { bypassDocumentValidation: true });
    await people.insertOne({ _id: 4, name: "ok", age: 4 });
    await db.command({ collMod: "people", validationLevel: "moderate" });
    await people.updateOne({ _id: 3 }, { $set: { note: "still invalid" } });
    t.is((await people.findOne({ _id: 3 }))?.["note"], "still invalid");
    t.is((await t.throwsAsync(people.updateOne({ _id: 4 }, { $set: { age: "four" } }), { instanceOf: MongoServerError }))?.code, ErrorCodes.DocumentValidationFailure);

    // warn: accepted, logged with the same errInfo.
    await db.command({ collMod: "people", validationAction: "warn" });
    await people.insertOne({ _id: 5, name: "w" });
    t.truthy(await people.findOne({ _id: 5 }));
    const logged = warnings.find((args) => String(args[0]).includes("would fail validation"));
    t.like(logged?.[1], { namespace: "validation.people" });
    t.is(Number((logged?.[1] as Document | undefined)?.["errInfo"]["failingDocumentId"]), 5);
    const [entry] = await db.listCollections({ name: "people" }).toArray();
    t.like((entry as Document | undefined)?.["options"], { validationLevel: "moderate", validationAction: "warn" });
  } finally {
    await client.close();
    await server.stop();
  }
});

test("collMod changes index options: hidden indexes are not used by the planner, expireAfterSeconds is updated", async (t) => {
  const db = shared.client.db(shared.freshDb("indexes"));
  const c = db.collection<Row>("c");
  await c.insertMany([{ _id: 1, a: 1, at: new Date() }, { _id: 2, a: 2, at: new Date() }]);
  await c.createIndex({ a: 1 });
  await c.createIndex({ at: 1 }, { expireAfterSeconds: 3600 });
  const plan = async (): Promise<string> => JSON.stringify((await c.find({ a: 1 }).explain("queryPlanner"))["queryPlanner"]["winningPlan"]);
  t.regex(await plan(), /IXSCAN/);
  const hide = await db.command({ collMod: "c", index: { keyPattern: { a: 1 }, hidden: true } });
  t.like(hide, { hidden_old: false, hidden_new: true });
  t.notRegex(await plan(), /IXSCAN/);
  t.true((await c.listIndexes().toArray()).some((index) => index["name"] === "a_1" && index["hidden"] === true));
  t.is((await c.find({ a: 1 }).toArray()).length, 1, "a hidden index is still maintained; queries still answer");
  await db.command({ collMod: "c", index: { name: "a_1", hidden: false } });
  t.regex(await plan(), /IXSCAN/);
  const ttl = await db.command({ collMod: "c", index: { name: "at_1", expireAfterSeconds: 60 } });
  t.like(ttl, { expireAfterSeconds_old: 3600, expireAfterSeconds_new: 60 });
  t.is((await c.listIndexes().toArray()).find((index) => index["name"] === "at_1")?.["expireAfterSeconds"], 60);
  t.is((await t.throwsAsync(db.command({ collMod: "c", index: { name: "a_1", expireAfterSeconds: 5 } }), { instanceOf: MongoServerError }))?.code, ErrorCodes.InvalidOptions);
});

test("mongoose: a schema validator created through Model.createCollection refuses invalid documents with 121", async (t) => {
  const connection = await mongoose.createConnection(shared.server.uri, { dbName: shared.freshDb("mongoose") }).asPromise();
  try {
    // validateBeforeSave off: the database, not mongoose, judges the document.
    const Item = connection.model("Item", new mongoose.Schema({ sku: String, qty: Number }, { validateBeforeSave: false }));
    await Item.createCollection({ validator: { $jsonSchema: { required: ["sku"], properties: { qty: { bsonType: ["int", "double"], minimum: 0 } } } } });
    await Item.create({ sku: "a", qty: 1 });
    const error = await t.throwsAsync(Item.create({ qty: -1 }));
    t.is((error as MongoServerError | undefined)?.code, ErrorCodes.DocumentValidationFailure);
    t.deepEqual((error as MongoServerError).errInfo?.["details"]["schemaRulesNotSatisfied"][0], {
      operatorName: "required",
      specifiedAs: { required: ["sku"] },
      missingProperties: ["sku"],
    });
    await connection.db!.command({ collMod: "items", changeStreamPreAndPostImages: { enabled: true } });
    const stream = Item.watch([], { fullDocumentBeforeChange: "required" });
    await new Promise<void>((resolve) => stream.once("resumeTokenChanged", () => resolve()));
    await Item.updateOne({ sku: "a" }, { $set: { qty: 2 } });
    const change = await new Promise<Document>((resolve) => stream.once("change", resolve));
    t.like(change["fullDocumentBeforeChange"], { sku: "a", qty: 1 });
    await stream.close();
  } finally {
    await connection.close();
  }
});

test("views and collMod options survive a restart of a journaled engine (journal replay, then a snapshot)", async (t) => {
  const dbPath = tempDir(t, "svc-collmod-");
  const { MongoClient } = await import("mongodb");
  const run = async (fn: (db: ReturnType<InstanceType<typeof MongoClient>["db"]>) => Promise<void>, compactOnClose = true): Promise<void> => {
    const server = await startEmbeddedMongo({ dbPath, logger: silentLogger, journal: { compactOnClose } });
    const client = await new MongoClient(server.uri).connect();
    try {
      await fn(client.db("app"));
    } finally {
      await client.close();
      await server.stop();
    }
  };
  const check = async (db: ReturnType<InstanceType<typeof MongoClient>["db"]>): Promise<void> => {
    t.deepEqual(await db.collection<Row>("big").find().toArray(), [{ _id: 2, n: 5 }]);
    const entries = await db.listCollections().toArray();
    t.like(entries.find((entry) => entry.name === "big"), { type: "view", options: { viewOn: "c", pipeline: [{ $match: { n: { $gt: 3 } } }] } });
    t.like((entries.find((entry) => entry.name === "c") as Document | undefined)?.["options"], { changeStreamPreAndPostImages: { enabled: true }, validationAction: "warn" });
    const stream = db.collection<Row>("c").watch([], { fullDocumentBeforeChange: "required" });
    await stream.tryNext();
    await db.collection<Row>("c").updateOne({ _id: 1 }, { $inc: { n: 1 } });
    t.like(((await stream.next()) as Document)["fullDocumentBeforeChange"], { _id: 1 });
    await stream.close();
  };
  await run(async (db) => {
    await db.collection<Row>("c").insertMany([{ _id: 1, n: 1 }, { _id: 2, n: 5 }]);
    await db.createCollection("big", { viewOn: "c", pipeline: [{ $match: { n: { $gt: 3 } } }] });
    await db.command({ collMod: "c", changeStreamPreAndPostImages: { enabled: true }, validator: { n: { $type: "number" } }, validationAction: "warn" });
  }, false);
  await run(check); // replayed from the journal alone (no snapshot was written); this clean stop snapshots
  await run(check); // loaded from the snapshot
});
