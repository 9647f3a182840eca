import type { Document } from "bson";
import { compileFilter } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { collectionDataSize, indexSizeEstimate } from "../storage/collection-size.js";
import type { CommandHandler } from "./command-context.js";
import { documentArgument, flagArgument } from "./command-arguments.js";

/**
 * `listDatabases` (admin only): databases that hold collections, with `filter` and `nameOnly`.
 *
 * @example
 * await engine.runCommand("admin", {listDatabases: 1, nameOnly: true}); // {databases: [{name: "app"}]}
 */
export const listDatabasesCommand: CommandHandler = (ctx) => {
  if (ctx.db !== "admin") {
    throw new EngineError(ErrorCodes.Unauthorized, "listDatabases may only be run against the admin database.");
  }
  const filter = documentArgument(ctx, "filter");
  const matcher = filter ? compileFilter(filter) : undefined;
  const nameOnly = flagArgument(ctx, "nameOnly");
  const storage = ctx.services.storage;
  const databases: Document[] = [];
  let totalSize = 0;
  for (const name of storage.databaseNames()) {
    const sizeOnDisk = nameOnly
      ? 0
      : storage.collections(name).reduce((sum, collection) => sum + collectionDataSize(collection), 0) || 4096;
    const entry: Document = nameOnly ? { name } : { name, sizeOnDisk, empty: false };
    if (matcher && !matcher.matches(nameOnly ? { name } : entry)) continue;
    databases.push(entry);
    totalSize += sizeOnDisk;
  }
  return nameOnly
    ? { databases, ok: 1 }
    : { databases, totalSize, totalSizeMb: Math.floor(totalSize / (1024 * 1024)), ok: 1 };
};

/** `dropDatabase`: drops every collection of the database through one atomic commit. */
export const dropDatabaseCommand: CommandHandler = (ctx) => {
  if (ctx.services.storage.collections(ctx.db).length > 0) ctx.commit([{ op: "dropDatabase", db: ctx.db }]);
  return { ok: 1 };
};

/** `dbStats`: counts and sizes of the database. */
export const dbStatsCommand: CommandHandler = (ctx) => {
  const collections = ctx.services.storage.collections(ctx.db);
  let objects = 0;
  let dataSize = 0;
  let indexes = 0;
  let indexSize = 0;
  for (const collection of collections) {
    objects += collection.count;
    dataSize += collectionDataSize(collection);
    indexes += collection.indexes.size;
    for (const index of collection.indexes.values()) indexSize += indexSizeEstimate(index.tree.size);
  }
  return {
    db: ctx.db,
    collections: collections.length,
    views: 0,
    objects,
    avgObjSize: objects > 0 ? dataSize / objects : 0,
    dataSize,
    storageSize: dataSize,
    indexes,
    indexSize,
    totalSize: dataSize + indexSize,
    scaleFactor: 1,
    fsUsedSize: 0,
    fsTotalSize: 0,
    ok: 1,
  };
};
