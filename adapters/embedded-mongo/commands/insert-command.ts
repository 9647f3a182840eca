import { calculateObjectSize, ObjectId } from "bson";
import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { MAX_BSON_OBJECT_SIZE } from "../wire/wire-constants.js";
import type { CommandHandler } from "./command-context.js";
import { arrayArgument, flagArgument, isPlainDocument, targetCollection } from "./command-arguments.js";
import { writeErrorOf } from "./write-errors.js";
import { assertNotView } from "./view-resolution.js";

/**
 * `insert`: each document is its own atomic write (as on mongod), so an ordered batch stops at
 * the first failure and an unordered one carries on; failures are reported in `writeErrors` with
 * the document's `index`. A missing `_id` becomes a new ObjectId placed first.
 *
 * @example
 * await engine.runCommand("app", {insert: "todos", documents: [{title: "a"}], ordered: true}); // {n: 1, ok: 1}
 */
export const insertCommand: CommandHandler = (ctx) => {
  const collection = targetCollection(ctx);
  assertNotView(ctx, collection);
  const documents = arrayArgument(ctx, "documents");
  const ordered = ctx.command["ordered"] === undefined ? true : flagArgument(ctx, "ordered");
  const bypassDocumentValidation = flagArgument(ctx, "bypassDocumentValidation");
  const writeErrors: Document[] = [];
  let n = 0;
  for (let index = 0; index < documents.length; index++) {
    try {
      const doc = prepareInsertDocument(documents[index]);
      ctx.commit([{ op: "insert", db: ctx.db, collection, doc, bypassDocumentValidation }]);
      n += 1;
    } catch (error) {
      writeErrors.push(writeErrorOf(error, index));
      if (ordered) break;
    }
  }
  return writeErrors.length > 0 ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
};

/**
 * Validates a document for storage and puts `_id` first (generating an ObjectId when absent),
 * the way mongod stores documents. Also used for upserts and `$out`/`$merge` writes.
 */
export function prepareInsertDocument(value: unknown): Document {
  if (!isPlainDocument(value)) throw new EngineError(ErrorCodes.TypeMismatch, "document to insert must be an object");
  const size = calculateObjectSize(value);
  if (size > MAX_BSON_OBJECT_SIZE) {
    // mongod answers BadValue here; BSONObjectTooLarge (10334) is for a document an update grows.
    throw new EngineError(ErrorCodes.BadValue, `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_OBJECT_SIZE}`);
  }
  const keys = Object.keys(value);
  if (keys[0] === "_id") {
    assertValidId(value["_id"]);
    return value;
  }
  if ("_id" in value) {
    assertValidId(value["_id"]);
    const { _id, ...rest } = value;
    return { _id, ...rest };
  }
  return { _id: new ObjectId(), ...value };
}

/**
 * `_id` may be anything but an array, a regex or undefined (InvalidIdField, 53), and holds no
 * `$`-prefixed field names at any depth (DollarPrefixedFieldName, 52; DBRef fields excepted).
 */
export function assertValidId(id: unknown): void {
  const dollarField = dollarPrefixedField(id);
  if (dollarField !== undefined) {
    throw new EngineError(ErrorCodes.DollarPrefixedFieldName, `_id fields may not contain '$'-prefixed fields: ${dollarField} is not valid for storage.`);
  }
  if (Array.isArray(id)) throw new EngineError(ErrorCodes.InvalidIdField, "The '_id' value cannot be of type array");
  if ((id as { _bsontype?: string } | null)?._bsontype === "BSONRegExp" || id instanceof RegExp) {
    throw new EngineError(ErrorCodes.InvalidIdField, "can't use a regex for _id");
  }
  if (id === undefined) throw new EngineError(ErrorCodes.InvalidIdField, "can't use undefined for _id");
}

const DBREF_FIELDS = new Set(["$ref", "$id", "$db"]);

/** The first `$`-prefixed field name inside a sub-document or array value, if any. */
function dollarPrefixedField(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const element of value) {
      const found = dollarPrefixedField(element);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isPlainDocument(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (key.startsWith("$") && !DBREF_FIELDS.has(key)) return key;
    const found = dollarPrefixedField(inner);
    if (found !== undefined) return found;
  }
  return undefined;
}
