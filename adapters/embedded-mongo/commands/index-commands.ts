import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { formatValue } from "../storage/duplicate-key-error.js";
import { distinguishableSpecs, parseIndexSpec, sameIndexOptions, sameKeyPattern } from "../storage/index-spec.js";
import type { IndexSpec } from "../storage/index-spec.js";
import type { WriteOp } from "../storage/write-ops.js";
import type { CommandHandler } from "./command-context.js";
import { arrayArgument, countArgument, documentArgument, isPlainDocument, targetCollection } from "./command-arguments.js";
import { notOnView } from "../storage/storage.js";
import { parseCollation } from "../query/collation-spec.js";

/**
 * `createIndexes`: builds each index over existing documents (a unique violation fails with
 * 11000 and creates nothing), creating the collection if needed. Re-requesting an identical
 * index is a no-op; the same name with another key → IndexKeySpecsConflict (86); the same
 * name/key with other options, or the same key under another name → IndexOptionsConflict (85).
 *
 * @example
 * await engine.runCommand("app", {createIndexes: "users", indexes: [{key: {email: 1}, name: "email_1", unique: true}]});
 */
export const createIndexesCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  const requested = arrayArgument(ctx, "indexes");
  if (requested.length === 0) throw new EngineError(ErrorCodes.BadValue, "Must specify at least one index to create");
  const collection = ctx.view.collection(ctx.db, name);
  const existing = collection ? [...collection.indexes.values()].map((index) => index.spec) : [];
  const numIndexesBefore = collection ? collection.indexes.size : 1;
  const toCreate: IndexSpec[] = [];
  for (const raw of requested) {
    if (!isPlainDocument(raw)) throw new EngineError(ErrorCodes.TypeMismatch, "each index specification must be an object");
    // Validated only: the index keeps the spec as given (listIndexes shows it, stored indexes compare by it).
    if (isPlainDocument(raw["collation"])) parseCollation(raw["collation"]);
    const withCollation =
      raw["collation"] === undefined && collection?.defaultCollation ? { ...raw, collation: collection.defaultCollation } : raw;
    const spec = parseIndexSpec(withCollation);
    assertUniqueSupported(spec);
    if (conflictCheck(spec, [...existing, ...toCreate]) === "exists") continue;
    toCreate.push(spec);
  }
  const ops: WriteOp[] = [];
  if (!collection) ops.push({ op: "createCollection", db: ctx.db, collection: name, options: {} });
  if (toCreate.length > 0) ops.push({ op: "createIndexes", db: ctx.db, collection: name, specs: toCreate });
  if (ops.length > 0) ctx.commit(ops);
  const reply: Document = {
    numIndexesBefore,
    numIndexesAfter: numIndexesBefore + toCreate.length,
    createdCollectionAutomatically: !collection,
  };
  if (toCreate.length === 0) reply["note"] = "all indexes already exist";
  reply["ok"] = 1;
  return reply;
};

/** mongod's code for a unique hashed index (a uassert without a name). */
const HASHED_INDEX_NOT_UNIQUE = 16764;

/**
 * Refuses `unique` where mongod does: hashed and wildcard (`$**`) indexes cannot enforce it.
 * Checked here, not in parseIndexSpec, so data directories that journaled such an index before
 * this check still recover.
 */
function assertUniqueSupported(spec: IndexSpec): void {
  if (!spec.unique) return;
  if (Object.values(spec.keyPattern).includes("hashed")) {
    throw new EngineError(HASHED_INDEX_NOT_UNIQUE, "Currently hashed indexes cannot guarantee uniqueness. Use a regular index.");
  }
  if (spec.fields.some((field) => field.path === "$**" || field.path.endsWith(".$**"))) {
    throw new EngineError(ErrorCodes.CannotCreateIndex, "Index type 'wildcard' does not support the unique option");
  }
}

/** "exists" for an identical index; throws 85/86 for conflicting ones; "new" otherwise. */
function conflictCheck(spec: IndexSpec, existing: readonly IndexSpec[]): "exists" | "new" {
  for (const other of existing) {
    if (other.name === spec.name) {
      if (!sameKeyPattern(spec, other)) {
        throw new EngineError(
          ErrorCodes.IndexKeySpecsConflict,
          `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${formatValue(spec.document)}, existing index: ${formatValue(other.document)}`,
        );
      }
      if (!sameIndexOptions(spec, other)) {
        throw new EngineError(
          ErrorCodes.IndexOptionsConflict,
          `An equivalent index already exists with the same name but different options. Requested index: ${formatValue(spec.document)}, existing index: ${formatValue(other.document)}`,
        );
      }
      return "exists";
    }
    if (sameKeyPattern(spec, other) && !distinguishableSpecs(spec, other)) {
      throw new EngineError(
        ErrorCodes.IndexOptionsConflict,
        sameIndexOptions(spec, other)
          ? `Index already exists with a different name: ${other.name}`
          : `An equivalent index already exists with a different name and options. Requested index: ${formatValue(spec.document)}, existing index: ${formatValue(other.document)}`,
      );
    }
  }
  return "new";
}

/** `listIndexes`: each index's specification, through a cursor. Missing collection → 26. */
export const listIndexesCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  const collection = ctx.services.storage.collection(ctx.db, name);
  if (!collection) throw new EngineError(ErrorCodes.NamespaceNotFound, `ns does not exist: ${ctx.db}.${name}`);
  if (collection.view) throw notOnView(collection.ns);
  const cursorOptions = documentArgument(ctx, "cursor") ?? {};
  const specs = [...collection.indexes.values()].map((index) => index.spec.document);
  const batch = ctx.services.cursors.open({
    ns: `${ctx.db}.${name}`,
    source: specs[Symbol.iterator](),
    batchSize: countArgument(ctx, "batchSize", cursorOptions),
  });
  return { cursor: batch, ok: 1 };
};

/** `dropIndexes`: by name, by key pattern, a list of names, or `"*"` (all but `_id_`). */
export const dropIndexesCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  const collection = ctx.services.storage.collection(ctx.db, name);
  if (!collection) throw new EngineError(ErrorCodes.NamespaceNotFound, `ns not found ${ctx.db}.${name}`);
  if (collection.view) throw notOnView(collection.ns);
  const target = ctx.command["index"];
  const nIndexesWas = collection.indexes.size;
  let names: string[];
  if (target === "*") {
    names = [...collection.indexes.keys()].filter((indexName) => indexName !== "_id_");
  } else if (typeof target === "string") {
    names = [target];
  } else if (Array.isArray(target) && target.every((entry) => typeof entry === "string")) {
    names = target as string[];
  } else if (isPlainDocument(target)) {
    const wanted = parseIndexSpec({ key: target, name: "lookup" });
    const matches = [...collection.indexes.values()].filter((index) => sameKeyPattern(index.spec, wanted));
    if (matches.length === 0) {
      throw new EngineError(ErrorCodes.IndexNotFound, `can't find index with key: ${formatValue(target)}`);
    }
    if (matches.length > 1) {
      throw new EngineError(ErrorCodes.AmbiguousIndexKeyPattern, `${matches.length} indexes found for key: ${formatValue(target)}, identify by name instead.`);
    }
    names = [matches[0]!.name];
  } else {
    throw new EngineError(ErrorCodes.TypeMismatch, "dropIndexes 'index' must be a string, an array of strings or an object");
  }
  for (const indexName of names) {
    if (indexName === "_id_") throw new EngineError(ErrorCodes.InvalidOptions, "cannot drop _id index");
    if (!collection.indexes.has(indexName)) {
      throw new EngineError(ErrorCodes.IndexNotFound, `index not found with name [${indexName}]`);
    }
  }
  if (names.length > 0) ctx.commit([{ op: "dropIndexes", db: ctx.db, collection: name, names }]);
  return { nIndexesWas, ok: 1 };
};

