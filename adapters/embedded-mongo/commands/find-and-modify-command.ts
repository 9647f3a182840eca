import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandHandler } from "./command-context.js";
import { arrayFiltersArgument, collationArgument, documentArgument, flagArgument, isPlainDocument, targetCollection } from "./command-arguments.js";
import { compileFindProjection } from "./find-projection.js";
import { letVariables } from "./let-variables.js";
import { prepareCommandQuery } from "./query-execution.js";
import { compileStatementUpdate, updateOneDocument, upsertDocument } from "./update-execution.js";
import { assertNotView } from "./view-resolution.js";

/**
 * `findAndModify`: atomically updates (or removes) the first document matching `query` in `sort`
 * order and returns it before (`new: false`) or after (`new: true`) the change, shaped by `fields`.
 * Reply `{lastErrorObject: {n, updatedExisting, upserted?}, value, ok: 1}`. Errors (11000...) fail
 * the command itself, as on mongod.
 *
 * @example
 * await engine.runCommand("app", {findAndModify: "counters", query: {_id: "seq"}, update: {$inc: {n: 1}}, new: true, upsert: true});
 */
export const findAndModifyCommand: CommandHandler = (ctx) => {
  const collectionName = targetCollection(ctx);
  assertNotView(ctx, collectionName);
  const remove = flagArgument(ctx, "remove");
  const returnNew = flagArgument(ctx, "new");
  const upsert = flagArgument(ctx, "upsert");
  const rawUpdate = ctx.command["update"];
  const hasUpdate = rawUpdate !== undefined && rawUpdate !== null;
  if (remove && hasUpdate) throw new EngineError(ErrorCodes.FailedToParse, "Cannot specify both an update and remove=true");
  if (!remove && !hasUpdate) throw new EngineError(ErrorCodes.FailedToParse, "Either an update or remove=true must be specified");
  if (remove && upsert) throw new EngineError(ErrorCodes.FailedToParse, "Cannot specify both upsert=true and remove=true");
  if (remove && returnNew) throw new EngineError(ErrorCodes.FailedToParse, "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document");
  if (hasUpdate && !isPlainDocument(rawUpdate) && !Array.isArray(rawUpdate)) {
    throw new EngineError(ErrorCodes.FailedToParse, "Update argument must be either an object or an array");
  }
  const filter = documentArgument(ctx, "query") ?? {};
  const collation = collationArgument(ctx);
  const variables = letVariables(ctx);
  const bypass = flagArgument(ctx, "bypassDocumentValidation");
  const fields = documentArgument(ctx, "fields");
  const collection = ctx.view.collection(ctx.db, collectionName);
  const query = prepareCommandQuery(ctx, collection, { filter, sort: documentArgument(ctx, "sort"), collation, limit: 1, variables });
  const project = fields && Object.keys(fields).length > 0 ? compileFindProjection(fields, query) : (doc: Document) => doc;
  const found = query.run().next();
  const before = found.done ? undefined : found.value.doc;

  if (remove) {
    if (!before) return { lastErrorObject: { n: 0 }, value: null, ok: 1 };
    ctx.commit([{ op: "delete", db: ctx.db, collection: collectionName, before }]);
    return { lastErrorObject: { n: 1 }, value: project(before), ok: 1 };
  }

  const arrayFilters = arrayFiltersArgument(ctx.command["arrayFilters"]);
  const update = compileStatementUpdate({
    update: rawUpdate as Document,
    arrayFilters,
    collation,
    variables,
  });
  if (!before) {
    if (!upsert) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
    const inserted = upsertDocument(ctx, collectionName, filter, update, bypass);
    return {
      lastErrorObject: { n: 1, updatedExisting: false, upserted: inserted["_id"] },
      value: returnNew ? project(inserted) : null,
      ok: 1,
    };
  }
  const after = updateOneDocument(ctx, collectionName, before, update, query.matcher, bypass) ?? before;
  return { lastErrorObject: { n: 1, updatedExisting: true }, value: project(returnNew ? after : before), ok: 1 };
};
