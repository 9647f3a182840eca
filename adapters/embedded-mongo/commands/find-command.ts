import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandContext, CommandHandler } from "./command-context.js";
import { countArgument, documentArgument, flagArgument, targetCollection } from "./command-arguments.js";
import { compileFindProjection } from "./find-projection.js";
import { prepareCommandQuery } from "./query-execution.js";
import type { PreparedQuery } from "./query-execution.js";
import { optionNumber } from "../bson-number.js";
import { resolveView } from "./view-resolution.js";
import { findOnView } from "./view-reads.js";

/** A parsed `find` command (also what `explain` needs). */
export interface ParsedFind {
  readonly collectionName: string;
  readonly query: PreparedQuery;
  readonly projection: Document | undefined;
  readonly limit: number | undefined;
  readonly skip: number | undefined;
  readonly batchSize: number | undefined;
  readonly singleBatch: boolean;
  readonly noCursorTimeout: boolean;
}

/**
 * Parses and plans a `find`. Negative `limit` is the legacy "single batch of |n|" form.
 * Tailable/awaitData cursors need capped collections, which the engine refuses to create.
 */
export function parseFind(ctx: CommandContext): ParsedFind {
  const collectionName = targetCollection(ctx);
  const collection = ctx.view.collection(ctx.db, collectionName);
  if (flagArgument(ctx, "tailable")) {
    throw new EngineError(ErrorCodes.BadValue, `error processing query: tailable cursor requested on non capped collection ${ctx.db}.${collectionName}`);
  }
  for (const unsupported of ["min", "max", "returnKey"]) {
    if (ctx.command[unsupported] !== undefined && ctx.command[unsupported] !== false) {
      throw new EngineError(ErrorCodes.NotImplemented, `find option '${unsupported}' is not supported by the embedded engine`);
    }
  }
  const rawLimit = optionNumber(ctx.command["limit"]);
  const singleBatch = flagArgument(ctx, "singleBatch") || (rawLimit !== undefined && rawLimit < 0);
  const limit = rawLimit !== undefined ? Math.abs(Math.trunc(rawLimit)) : undefined;
  const skip = countArgument(ctx, "skip");
  const filter = documentArgument(ctx, "filter") ?? {};
  const sort = documentArgument(ctx, "sort");
  const projection = documentArgument(ctx, "projection");
  const query = prepareCommandQuery(ctx, collection, { filter, sort, skip, limit });
  return {
    collectionName,
    query,
    projection: projection && Object.keys(projection).length > 0 ? projection : undefined,
    limit: limit || undefined,
    skip,
    batchSize: countArgument(ctx, "batchSize"),
    singleBatch,
    noCursorTimeout: flagArgument(ctx, "noCursorTimeout"),
  };
}

/**
 * `find`: filter, sort, projection, skip, limit, batchSize, singleBatch, hint, collation, let.
 * Returns the first batch (101 documents by default) and a cursor id when more remain.
 *
 * @example
 * await engine.runCommand("app", {find: "todos", filter: {done: false}, sort: {due: 1}, limit: 20});
 */
export const findCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  if (resolveView(ctx, name)) return findOnView(ctx, name);
  const parsed = parseFind(ctx);
  const collection = ctx.view.collection(ctx.db, parsed.collectionName);
  const transform = parsed.projection ? compileFindProjection(parsed.projection, parsed.query) : undefined;
  const batch = ctx.services.cursors.open({
    ns: `${ctx.db}.${parsed.collectionName}`,
    source: parsed.query.run(),
    transform,
    limit: parsed.limit,
    batchSize: parsed.batchSize,
    singleBatch: parsed.singleBatch,
    collection,
    sessionKey: ctx.session?.cursorKey,
    noTimeout: parsed.noCursorTimeout,
  });
  return { cursor: batch, ok: 1 };
};
