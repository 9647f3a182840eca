import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandContext, CommandHandler } from "./command-context.js";
import { arrayArgument, documentArgument, flagArgument, isPlainDocument, targetCollection } from "./command-arguments.js";
import { prepareCommandQuery } from "./query-execution.js";
import { writeErrorOf } from "./write-errors.js";
import { assertNotView } from "./view-resolution.js";

/**
 * `delete`: statements `{q, limit: 0 | 1, collation?, hint?}`; each removed document is its own
 * committed write. Ordered batches stop at the first failing statement.
 *
 * @example
 * await engine.runCommand("app", {delete: "todos", deletes: [{q: {done: true}, limit: 0}]}); // {n: 3, ok: 1}
 */
export const deleteCommand: CommandHandler = (ctx) => {
  const collectionName = targetCollection(ctx);
  assertNotView(ctx, collectionName);
  const statements = arrayArgument(ctx, "deletes");
  const ordered = ctx.command["ordered"] === undefined ? true : flagArgument(ctx, "ordered");
  const writeErrors: Document[] = [];
  let n = 0;
  for (let index = 0; index < statements.length; index++) {
    try {
      n += runDeleteStatement(ctx, collectionName, statements[index]);
    } catch (error) {
      writeErrors.push(writeErrorOf(error, index));
      if (ordered) break;
    }
  }
  return writeErrors.length > 0 ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
};

function runDeleteStatement(ctx: CommandContext, collectionName: string, statement: unknown): number {
  if (!isPlainDocument(statement)) throw new EngineError(ErrorCodes.TypeMismatch, "delete statement must be an object");
  const filter = documentArgument(ctx, "q", statement);
  if (!filter) throw new EngineError(ErrorCodes.FailedToParse, "BSON field 'delete.deletes.q' is missing but a required field");
  const limit = optionNumber(statement["limit"]) ?? 0;
  if (limit !== 0 && limit !== 1) {
    throw new EngineError(ErrorCodes.FailedToParse, `The limit field in delete objects must be 0 or 1. Got ${limit}`);
  }
  const collection = ctx.view.collection(ctx.db, collectionName);
  if (!collection) return 0;
  const query = prepareCommandQuery(ctx, collection, { filter, limit }, statement);
  // Materialize first: deleting while walking an index would skip neighbours.
  const docs = [...query.run()].map((record) => record.doc);
  for (const before of docs) ctx.commit([{ op: "delete", db: ctx.db, collection: collectionName, before }]);
  return docs.length;
}
