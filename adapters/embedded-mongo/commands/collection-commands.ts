import type { Document } from "bson";
import { compileFilter } from "../query/index.js";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { collectionDataSize, indexSizeEstimate } from "../storage/collection-size.js";
import { assertValidCollectionName, splitNamespace } from "../storage/namespace.js";
import type { CollModOp, CollectionOptions } from "../storage/write-ops.js";
import type { CommandHandler } from "./command-context.js";
import {
  countArgument,
  documentArgument,
  flagArgument,
  GENERIC_COMMAND_FIELDS,
  isPlainDocument,
  targetCollection,
} from "./command-arguments.js";

/** `create` options that need features the engine does not have: refused, never ignored. */
const UNSUPPORTED_CREATE_OPTIONS: Readonly<Record<string, string>> = {
  capped: "capped collections are not supported by the embedded engine",
  viewOn: "views are not supported by the embedded engine",
  timeseries: "time series collections are not supported by the embedded engine",
  clusteredIndex: "clustered collections are not supported by the embedded engine",
  encryptedFields: "queryable encryption is not supported by the embedded engine",
};

/**
 * `create`: a collection with optional `validator`/`validationLevel`/`validationAction` and a
 * default `collation`. Exists already → NamespaceExists (48).
 *
 * @example
 * await engine.runCommand("app", {create: "users", validator: {email: {$type: "string"}}});
 */
export const createCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
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
      case "capped":
      case "autoIndexId":
        break;
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

/** `collMod`: validator settings, and `index: {name | keyPattern, expireAfterSeconds, hidden}`. */
export const collModCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  const collection = ctx.services.storage.collection(ctx.db, name);
  if (!collection) throw new EngineError(ErrorCodes.NamespaceNotFound, `ns does not exist: ${ctx.db}.${name}`);
  const reply: Document = {};
  let indexChanges: CollModOp["indexChanges"];
  const indexArgument = documentArgument(ctx, "index");
  if (indexArgument) {
    const index =
      typeof indexArgument["name"] === "string"
        ? collection.indexes.get(indexArgument["name"])
        : [...collection.indexes.values()].find(
            (candidate) => isPlainDocument(indexArgument["keyPattern"]) && sameKeyDocument(candidate.spec.keyPattern, indexArgument["keyPattern"]),
          );
    if (!index) throw new EngineError(ErrorCodes.IndexNotFound, "cannot find index for ns");
    const expireAfterSeconds = optionNumber(indexArgument["expireAfterSeconds"]);
    if (indexArgument["expireAfterSeconds"] !== undefined) {
      if (index.spec.expireAfterSeconds === undefined) {
        throw new EngineError(ErrorCodes.InvalidOptions, "no expireAfterSeconds field to update");
      }
      reply["expireAfterSeconds_old"] = index.spec.expireAfterSeconds;
      reply["expireAfterSeconds_new"] = expireAfterSeconds;
    }
    const hidden = indexArgument["hidden"];
    if (hidden !== undefined) {
      reply["hidden_old"] = index.spec.document["hidden"] === true;
      reply["hidden_new"] = hidden === true;
    }
    indexChanges = [
      {
        name: index.name,
        ...(expireAfterSeconds !== undefined ? { expireAfterSeconds } : {}),
        ...(typeof hidden === "boolean" ? { hidden } : {}),
      },
    ];
  }
  const validator = documentArgument(ctx, "validator");
  ctx.commit([
    {
      op: "collMod",
      db: ctx.db,
      collection: name,
      ...(validator ? { validator } : {}),
      ...(ctx.command["validationLevel"] !== undefined ? { validationLevel: parseValidationLevel(ctx.command["validationLevel"]) } : {}),
      ...(ctx.command["validationAction"] !== undefined ? { validationAction: parseValidationAction(ctx.command["validationAction"]) } : {}),
      ...(indexChanges ? { indexChanges } : {}),
    },
  ]);
  return { ...reply, ok: 1 };
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
    const full: Document = {
      name: collection.name,
      type: "collection",
      options: collection.optionsDocument(),
      info: { readOnly: false, uuid: collection.uuid },
      idIndex: { v: 2, key: { _id: 1 }, name: "_id_" },
    };
    if (matcher && !matcher.matches(full)) continue;
    entries.push(nameOnly ? { name: collection.name, type: "collection" } : full);
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

function parseValidationLevel(value: unknown): NonNullable<CollectionOptions["validationLevel"]> {
  if (value === "off" || value === "strict" || value === "moderate") return value;
  throw new EngineError(ErrorCodes.BadValue, `Enumeration value '${String(value)}' for field 'validationLevel' is not a valid value.`);
}

function parseValidationAction(value: unknown): NonNullable<CollectionOptions["validationAction"]> {
  if (value === "error" || value === "warn") return value;
  throw new EngineError(ErrorCodes.BadValue, `Enumeration value '${String(value)}' for field 'validationAction' is not a valid value.`);
}

function sameKeyDocument(a: Document, b: Document): boolean {
  const ea = Object.entries(a);
  const eb = Object.entries(b);
  return ea.length === eb.length && ea.every(([k, v], i) => k === eb[i]![0] && String(optionNumber(v) ?? v) === String(optionNumber(eb[i]![1]) ?? eb[i]![1]));
}

