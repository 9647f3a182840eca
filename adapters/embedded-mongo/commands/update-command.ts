import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandContext, CommandHandler } from "./command-context.js";
import {
  arrayArgument,
  collationArgument,
  documentArgument,
  flagArgument,
  isPlainDocument,
  targetCollection,
  arrayFiltersArgument,
} from "./command-arguments.js";
import { letVariables } from "./let-variables.js";
import { prepareCommandQuery } from "./query-execution.js";
import { compileStatementUpdate, updateOneDocument, upsertDocument } from "./update-execution.js";
import { writeErrorOf } from "./write-errors.js";
import { assertNotView } from "./view-resolution.js";

/**
 * `update`: statements `{q, u, upsert, multi, arrayFilters, collation, hint, c}` where `u` is an
 * operator document, a replacement, or a pipeline. Reply `{n, nModified, upserted: [{index, _id}]}`;
 * each modified document is its own committed write.
 *
 * @example
 * await engine.runCommand("app", {update: "todos", updates: [{q: {_id: id}, u: {$set: {done: true}}}]});
 */
export const updateCommand: CommandHandler = (ctx) => {
  const collectionName = targetCollection(ctx);
  assertNotView(ctx, collectionName);
  const statements = arrayArgument(ctx, "updates");
  const ordered = ctx.command["ordered"] === undefined ? true : flagArgument(ctx, "ordered");
  const bypass = flagArgument(ctx, "bypassDocumentValidation");
  const writeErrors: Document[] = [];
  const upserted: Document[] = [];
  let n = 0;
  let nModified = 0;
  for (let index = 0; index < statements.length; index++) {
    try {
      const result = runUpdateStatement(ctx, collectionName, statements[index], bypass);
      n += result.n;
      nModified += result.nModified;
      if (result.upsertedId !== undefined) upserted.push({ index, _id: result.upsertedId });
    } catch (error) {
      writeErrors.push(writeErrorOf(error, index));
      if (ordered) break;
    }
  }
  const reply: Document = { n, nModified };
  if (upserted.length > 0) reply["upserted"] = upserted;
  if (writeErrors.length > 0) reply["writeErrors"] = writeErrors;
  reply["ok"] = 1;
  return reply;
};

function runUpdateStatement(
  ctx: CommandContext,
  collectionName: string,
  statement: unknown,
  bypass: boolean,
): { n: number; nModified: number; upsertedId?: unknown } {
  if (!isPlainDocument(statement)) throw new EngineError(ErrorCodes.TypeMismatch, "update statement must be an object");
  const filter = documentArgument(ctx, "q", statement);
  if (!filter) throw new EngineError(ErrorCodes.FailedToParse, "BSON field 'update.updates.q' is missing but a required field");
  const u = statement["u"];
  if (!isPlainDocument(u) && !Array.isArray(u)) {
    throw new EngineError(ErrorCodes.FailedToParse, "BSON field 'update.updates.u' is missing or not an object or array");
  }
  if (statement["sort"] !== undefined) {
    // MongoDB 8.0 added `sort` to update statements; the engine answers as the 7.0 it declares.
    throw new EngineError(40415, "BSON field 'update.updates.sort' is an unknown field.");
  }
  const multi = flagArgument(ctx, "multi", statement);
  const upsert = flagArgument(ctx, "upsert", statement);
  const collation = collationArgument(ctx, statement);
  const commandVariables = letVariables(ctx);
  const constants = documentArgument(ctx, "c", statement);
  const variables = commandVariables || constants ? { ...(commandVariables ?? {}), ...(constants ?? {}) } : undefined;
  const arrayFilters = arrayFiltersArgument(statement["arrayFilters"]);
  const update = compileStatementUpdate({
    update: u as Document,
    arrayFilters,
    collation,
    variables,
  });
  if (multi && update.kind === "replacement") {
    throw new EngineError(ErrorCodes.FailedToParse, "multi update is not supported for replacement-style update");
  }
  const collection = ctx.view.collection(ctx.db, collectionName);
  const query = prepareCommandQuery(ctx, collection, { filter, collation, limit: multi ? 0 : 1, variables }, statement);
  // Snapshot the matches first: updating while scanning an index could revisit moved documents.
  const matched = [...query.run()].map((record) => record.doc);
  if (matched.length === 0) {
    if (!upsert) return { n: 0, nModified: 0 };
    const doc = upsertDocument(ctx, collectionName, filter, update, bypass);
    return { n: 1, nModified: 0, upsertedId: doc["_id"] };
  }
  let nModified = 0;
  for (const before of matched) {
    if (updateOneDocument(ctx, collectionName, before, update, query.matcher, bypass)) nModified += 1;
  }
  return { n: matched.length, nModified };
}
