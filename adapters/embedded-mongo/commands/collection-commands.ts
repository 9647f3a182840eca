import type { Document } from "bson";
import { compileFilter } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { collectionDataSize, indexSizeEstimate } from "../storage/collection-size.js";
import { assertValidCollectionName, splitNamespace } from "../storage/namespace.js";
import { parsePreAndPostImagesOption } from "../storage/collection-options.js";
import { notOnView } from "../storage/storage.js";
import type { CollectionOptions } from "../storage/write-ops.js";
import type { CommandContext, CommandHandler } from "./command-context.js";
import { parseViewDefinition } from "./view-definition.js";
import { parseCollation } from "../query/collation-spec.js";
import {
  countArgument,
  documentArgument,
  flagArgument,
  GENERIC_COMMAND_FIELDS,
  targetCollection,
} from "./command-arguments.js";

/** `create` options that need features the engine does not have: refused, never ignored. */
const UNSUPPORTED_CREATE_OPTIONS: Readonly<Record<string, string>> = {
  capped: "capped collections are not supported by the embedded engine",
  timeseries: "time series collections are not supported by the embedded engine",
  clusteredIndex: "clustered collections are not supported by the embedded engine",
  encryptedFields: "queryable encryption is not supported by the embedded engine",
};

/** The only `create` options a view takes besides `viewOn` and `pipeline`. */
const VIEW_OPTIONS = new Set(["viewOn", "pipeline", "collation"]);

/**
 * `create`: a collection with optional `validator`/`validationLevel`/`validationAction`,
 * `changeStreamPreAndPostImages` and a default `collation`; or, with `viewOn` (+ `pipeline`), a
 * read-only view. Exists already → NamespaceExists (48).
 *
 * @example
 * await engine.runCommand("app", {create: "users", validator: {email: {$type: "string"}}});
 * await engine.runCommand("app", {create: "paidOrders", viewOn: "orders", pipeline: [{$match: {paid: true}}]});
 */
export const createCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  if (ctx.command["viewOn"] !== undefined || ctx.command["pipeline"] !== undefined) return createView(ctx, name);
  const other: Document = {};
  let validator: Document | undefined;
  let validationLevel: CollectionOptions["validationLevel"];
  let validationAction: CollectionOptions["validationAction"];
  for (const [field, value] of Object.entries(ctx.command)) {
    if (field === "create" || GENERIC_COMMAND_FIELDS.has(field)) continue;
    const unsupported = UNSUPPORTED_CREATE_OPTIONS[field];
    if (unsupported && value !== false && value !== undefined && value !== null) {
      throw new EngineError(ErrorCodes.InvalidOptions, unsupported);
    }
    switch (field) {
      case "validator":
        validator = documentArgument(ctx, "validator");
        break;
      case "validationLevel":
        validationLevel = parseValidationLevel(value);
        break;
      case "validationAction":
        validationAction = parseValidationAction(value);
        break;
      case "changeStreamPreAndPostImages":
        if (parsePreAndPostImagesOption(value, "create").enabled) other[field] = { enabled: true };
        break;
      case "capped":
      case "autoIndexId":
        break;
      case "collation": {
        const collation = documentArgument(ctx, "collation");
        if (collation) parseCollation(collation);
        other[field] = value;
        break;
      }
      default:
        other[field] = value;
    }
  }
  ctx.commit([
    {
      op: "createCollection",
      db: ctx.db,
      collection: name,
      options: {
        ...(validator && Object.keys(validator).length > 0 ? { validator } : {}),
        ...(validationLevel ? { validationLevel } : {}),
        ...(validationAction ? { validationAction } : {}),
        ...(Object.keys(other).length > 0 ? { other } : {}),
      },
    },
  ]);
  return { ok: 1 };
};

/** `create` with `viewOn`: checks the definition (view-definition.ts) and records the view. */
function createView(ctx: CommandContext, name: string): Document {
  if (ctx.transaction) {
    throw new EngineError(ErrorCodes.OperationNotSupportedInTransaction, `Cannot create a view in a multi-document transaction.`);
  }
  if (ctx.command["viewOn"] === undefined) throw new EngineError(ErrorCodes.BadValue, "'pipeline' requires 'viewOn' to also be specified");
  for (const field of Object.keys(ctx.command)) {
    if (field === "create" || GENERIC_COMMAND_FIELDS.has(field) || VIEW_OPTIONS.has(field)) continue;
    throw new EngineError(ErrorCodes.InvalidOptions, `option not supported on a view: ${field}`);
  }
  const view = parseViewDefinition(ctx.view, ctx.db, name, ctx.command["viewOn"], ctx.command["pipeline"]);
  const collation = documentArgument(ctx, "collation");
  // Reads of a view do not apply its collation yet: refused rather than read with another one.
  const parsed = collation ? parseCollation(collation) : undefined;
  if (parsed && parsed.locale !== "simple") {
    throw new EngineError(ErrorCodes.NotImplemented, "a view's default collation is not supported by the embedded engine");
  }
  ctx.commit([
    {
      op: "createCollection",
      db: ctx.db,
      collection: name,
      options: { other: { viewOn: view.viewOn, pipeline: view.pipeline, ...(collation ? { collation } : {}) } },
    },
  ]);
  return { ok: 1 };
}

/** `drop`: removes a collection and its indexes; a missing collection is a no-op (MongoDB 7.0). */
export const dropCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  const collection = ctx.services.storage.collection(ctx.db, name);
  if (!collection) return { ok: 1 };
  const nIndexesWas = collection.indexes.size;
  ctx.commit([{ op: "dropCollection", db: ctx.db, collection: name }]);
  return { nIndexesWas, ns: `${ctx.db}.${name}`, ok: 1 };
};

/** `renameCollection` (admin only): `{renameCollection: "db.a", to: "db.b", dropTarget}`. */
export const renameCollectionCommand: CommandHandler = (ctx) => {
  if (ctx.db !== "admin") {
    throw new EngineError(ErrorCodes.Unauthorized, "renameCollection may only be run against the admin database.");
  }
  const fromNs = ctx.command["renameCollection"];
  const toNs = ctx.command["to"];
  if (typeof fromNs !== "string" || typeof toNs !== "string") {
    throw new EngineError(ErrorCodes.TypeMismatch, "renameCollection and to must be namespace strings");
  }
  const from = splitNamespace(fromNs);
  const to = splitNamespace(toNs);
  assertValidCollectionName(from.db, from.collection);
  assertValidCollectionName(to.db, to.collection);
  if (fromNs === toNs) throw new EngineError(ErrorCodes.IllegalOperation, "Can't rename a collection to itself");
  if (!ctx.services.storage.collection(from.db, from.collection)) {
    throw new EngineError(ErrorCodes.NamespaceNotFound, `Source collection ${fromNs} does not exist`);
  }
  ctx.commit([
    {
      op: "renameCollection",
      db: from.db,
      collection: from.collection,
      toDb: to.db,
      toCollection: to.collection,
      dropTarget: flagArgument(ctx, "dropTarget"),
    },
  ]);
  return { ok: 1 };
};

/**
 * `listCollections`: `{name, type, options, info: {readOnly, uuid}, idIndex}` per collection,
 * filtered by `filter`, through a cursor (`nameOnly` returns `{name, type}`).
 */
export const listCollectionsCommand: CommandHandler = (ctx) => {
  const filter = documentArgument(ctx, "filter");
  const matcher = filter ? compileFilter(filter) : undefined;
  const nameOnly = flagArgument(ctx, "nameOnly");
  const cursorOptions = documentArgument(ctx, "cursor") ?? {};
  const entries: Document[] = [];
  for (const collection of ctx.services.storage.collections(ctx.db)) {
    const type = collection.view ? "view" : "collection";
    const full: Document = collection.view
      ? { name: collection.name, type, options: collection.optionsDocument(), info: { readOnly: true } }
      : {
          name: collection.name,
          type,
          options: collection.optionsDocument(),
          info: { readOnly: false, uuid: collection.uuid },
          idIndex: { v: 2, key: { _id: 1 }, name: "_id_" },
        };
    if (matcher && !matcher.matches(full)) continue;
    entries.push(nameOnly ? { name: collection.name, type } : full);
  }
  const batch = ctx.services.cursors.open({
    ns: `${ctx.db}.$cmd.listCollections`,
    source: entries[Symbol.iterator](),
    batchSize: countArgument(ctx, "batchSize", cursorOptions),
    sessionKey: undefined,
  });
  return { cursor: batch, ok: 1 };
};

/** `collStats` (deprecated in 6.2 but still used by tools): sizes and counts. */
export const collStatsCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  const collection = ctx.services.storage.collection(ctx.db, name);
  if (!collection) throw new EngineError(ErrorCodes.NamespaceNotFound, `Collection [${ctx.db}.${name}] not found.`);
  if (collection.view) throw notOnView(collection.ns);
  const size = collectionDataSize(collection);
  const indexSizes: Document = {};
  let totalIndexSize = 0;
  for (const index of collection.indexes.values()) {
    indexSizes[index.name] = indexSizeEstimate(index.tree.size);
    totalIndexSize += indexSizeEstimate(index.tree.size);
  }
  return {
    ns: collection.ns,
    count: collection.count,
    size,
    avgObjSize: collection.count > 0 ? size / collection.count : 0,
    storageSize: size,
    nindexes: collection.indexes.size,
    totalIndexSize,
    totalSize: size + totalIndexSize,
    indexSizes,
    scaleFactor: 1,
    capped: false,
    ok: 1,
  };
};

/** `validationLevel` of `create`/`collMod`: off | strict | moderate (BadValue otherwise). */
export function parseValidationLevel(value: unknown): NonNullable<CollectionOptions["validationLevel"]> {
  if (value === "off" || value === "strict" || value === "moderate") return value;
  throw new EngineError(ErrorCodes.BadValue, `Enumeration value '${String(value)}' for field 'validationLevel' is not a valid value.`);
}

/** `validationAction` of `create`/`collMod`: error | warn (BadValue otherwise). */
export function parseValidationAction(value: unknown): NonNullable<CollectionOptions["validationAction"]> {
  if (value === "error" || value === "warn") return value;
  throw new EngineError(ErrorCodes.BadValue, `Enumeration value '${String(value)}' for field 'validationAction' is not a valid value.`);
}
