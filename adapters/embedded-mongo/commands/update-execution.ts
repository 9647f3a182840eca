import { calculateObjectSize, ObjectId } from "bson";
import type { Document } from "bson";
import { compileUpdate, equalityKey, upsertSeed } from "../query/index.js";
import type { Collation, CompiledUpdate, Matcher } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { formatValue } from "../storage/duplicate-key-error.js";
import type { UpdateOp } from "../storage/write-ops.js";
import { MAX_BSON_OBJECT_SIZE } from "../wire/wire-constants.js";
import type { CommandContext } from "./command-context.js";
import { assertValidId } from "./insert-command.js";

export interface UpdateSpec {
  readonly update: Document | readonly Document[];
  readonly arrayFilters?: readonly Document[] | undefined;
  readonly collation?: Collation | undefined;
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Compiles an update (operators, replacement or pipeline) with the query library.
 *
 * @example
 * const update = compileStatementUpdate({update: {$inc: {n: 1}}});
 */
export function compileStatementUpdate(spec: UpdateSpec): CompiledUpdate {
  return compileUpdate(spec.update as Document, {
    ...(spec.arrayFilters ? { arrayFilters: spec.arrayFilters } : {}),
    ...(spec.collation ? { collation: spec.collation } : {}),
    ...(spec.variables ? { variables: spec.variables } : {}),
  });
}

/**
 * Applies a compiled update to one stored document and commits the change (if any). Returns the
 * new document, or `undefined` when the update changed nothing (MongoDB's nModified = 0).
 */
export function updateOneDocument(
  ctx: CommandContext,
  collection: string,
  before: Document,
  update: CompiledUpdate,
  matcher: Matcher,
  bypassDocumentValidation: boolean,
): Document | undefined {
  let positional: number | undefined;
  if (update.usesPositional) {
    positional = matcher.matchDetails(before).positional;
    if (positional === undefined) {
      throw new EngineError(ErrorCodes.BadValue, "The positional operator did not find the match needed from the query.");
    }
  }
  const result = update.apply(before, { isInsert: false, ...(positional !== undefined ? { positional } : {}) });
  if (!result.modified) return undefined;
  const after = result.doc;
  assertIdUnchanged(before, after);
  assertSize(after);
  const op: UpdateOp = {
    op: "update",
    db: ctx.db,
    collection,
    before,
    after,
    ...(update.kind !== "replacement" ? { updateDescription: result.updateDescription } : {}),
    bypassDocumentValidation,
  };
  ctx.commit([op]);
  return after;
}

/**
 * Inserts the document an upsert creates: the filter's equality fields (`upsertSeed`) with the
 * update applied as an insert (`$setOnInsert` active), or the replacement document; `_id` from
 * the update, else from the filter, else a new ObjectId, always placed first.
 */
export function upsertDocument(
  ctx: CommandContext,
  collection: string,
  filter: Document,
  update: CompiledUpdate,
  bypassDocumentValidation: boolean,
): Document {
  const seed = upsertSeed(filter);
  let doc: Document;
  if (update.kind === "replacement") {
    const replaced = update.apply({}, { isInsert: true }).doc;
    doc = "_id" in replaced || !("_id" in seed) ? replaced : { _id: seed["_id"], ...replaced };
  } else {
    doc = update.apply(seed, { isInsert: true }).doc;
  }
  doc = idFirst(doc);
  assertValidId(doc["_id"]);
  assertSize(doc);
  ctx.commit([{ op: "insert", db: ctx.db, collection, doc, bypassDocumentValidation }]);
  return doc;
}

function idFirst(doc: Document): Document {
  if (!("_id" in doc)) return { _id: new ObjectId(), ...doc };
  if (Object.keys(doc)[0] === "_id") return doc;
  const { _id, ...rest } = doc;
  return { _id, ...rest };
}

function assertIdUnchanged(before: Document, after: Document): void {
  if (equalityKey(before["_id"]) !== equalityKey(after["_id"])) {
    throw new EngineError(
      ErrorCodes.ImmutableField,
      `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(after["_id"])}`,
    );
  }
}

function assertSize(doc: Document): void {
  const size = calculateObjectSize(doc);
  if (size > MAX_BSON_OBJECT_SIZE) {
    throw new EngineError(ErrorCodes.BSONObjectTooLarge, `Resulting document after update is larger than ${MAX_BSON_OBJECT_SIZE}`);
  }
}
