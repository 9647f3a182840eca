import type { Document } from "bson";
import { compareBson } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandHandler } from "./command-context.js";
import { collationArgument, documentArgument, isPlainDocument, targetCollection } from "./command-arguments.js";
import { prepareCommandQuery } from "./query-execution.js";
import { viewDocuments } from "./view-reads.js";

/**
 * `distinct`: the distinct values at `key` among documents matching `query`. Arrays at the path
 * contribute their elements; values equal under the collation count once. Values come back in
 * BSON order.
 *
 * @example
 * await engine.runCommand("app", {distinct: "todos", key: "tags"}); // {values: ["a", "b"], ok: 1}
 */
export const distinctCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  const key = ctx.command["key"];
  if (typeof key !== "string" || key.length === 0) {
    throw new EngineError(ErrorCodes.TypeMismatch, "BSON field 'distinct.key' must be a non-empty string");
  }
  const collection = ctx.view.collection(ctx.db, name);
  if (!collection) return { values: [], ok: 1 };
  const collation = collationArgument(ctx, ctx.command, collection.defaultCollation);
  const filter = documentArgument(ctx, "query") ?? {};
  const parts = key.split(".");
  const values: unknown[] = [];
  if (collection.view) {
    for (const doc of viewDocuments(ctx, name, filter)) collectValues(doc, parts, 0, values);
  } else {
    for (const record of prepareCommandQuery(ctx, collection, { filter, collation }).run()) collectValues(record.doc, parts, 0, values);
  }
  values.sort((a, b) => compareBson(a, b, collation));
  const distinct = values.filter((value, i) => i === 0 || compareBson(value, values[i - 1], collation) !== 0);
  return { values: distinct, ok: 1 };
};

/** Values reachable at `parts`, walking arrays of sub-documents and expanding a leaf array. */
function collectValues(value: unknown, parts: readonly string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    if (Array.isArray(value)) out.push(...value);
    else if (value !== undefined) out.push(value);
    return;
  }
  if (Array.isArray(value)) {
    const position = /^\d+$/.test(parts[i]!) ? Number(parts[i]) : -1;
    if (position >= 0) {
      collectValues(value[position], parts, i + 1, out);
      return;
    }
    for (const element of value) if (isPlainDocument(element)) collectValues(element[parts[i]!], parts, i + 1, out);
    return;
  }
  if (isPlainDocument(value)) collectValues((value as Document)[parts[i]!], parts, i + 1, out);
}
