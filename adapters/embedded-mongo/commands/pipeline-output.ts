import { randomBytes } from "node:crypto";
import type { Document } from "bson";
import { compileUpdate, equalityKey } from "../query/index.js";
import type { PipelineOutput } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { assertValidCollectionName } from "../storage/namespace.js";
import type { WriteOp } from "../storage/write-ops.js";
import type { CommandContext } from "./command-context.js";
import { prepareInsertDocument } from "./insert-command.js";
import { prepareQuery } from "./query-execution.js";

/**
 * Performs the write a pipeline's final stage describes:
 * - `$out` builds the result in a temporary collection (with the target's options and indexes)
 *   and renames it over the target in **one** atomic commit: readers see the old or the new
 *   contents, never a mix, and a failure (duplicate `_id`, validation) leaves the target as it was.
 * - `$merge` matches each result on its `on` fields and inserts, replaces, merges, keeps or fails
 *   per `whenMatched`/`whenNotMatched`; each document is its own write, as on mongod.
 *
 * @example
 * applyPipelineOutput(ctx, {stage: "$out", target: {coll: "report"}, docs});
 */
export function applyPipelineOutput(ctx: CommandContext, output: PipelineOutput): void {
  const db = output.target.db ?? ctx.db;
  assertValidCollectionName(db, output.target.coll);
  if (output.stage === "$out") applyOut(ctx, db, output.target.coll, output.docs);
  else applyMerge(ctx, db, output);
}

function applyOut(ctx: CommandContext, db: string, target: string, docs: Document[]): void {
  const existing = ctx.services.storage.collection(db, target);
  const temp = `tmp.agg_out.${randomBytes(6).toString("hex")}`;
  const ops: WriteOp[] = [{ op: "createCollection", db, collection: temp, options: existing?.options ?? {} }];
  const specs = existing ? [...existing.indexes.values()].filter((index) => index.name !== "_id_").map((index) => index.spec) : [];
  if (specs.length > 0) ops.push({ op: "createIndexes", db, collection: temp, specs });
  for (const doc of docs) ops.push({ op: "insert", db, collection: temp, doc: prepareInsertDocument(doc) });
  ops.push({ op: "renameCollection", db, collection: temp, toDb: db, toCollection: target, dropTarget: true });
  ctx.commit(ops);
}

function applyMerge(ctx: CommandContext, db: string, output: Extract<PipelineOutput, { stage: "$merge" }>): void {
  const storage = ctx.services.storage;
  const on = output.on.length > 0 ? output.on : ["_id"];
  const onId = on.length === 1 && on[0] === "_id";
  const targetName = output.target.coll;
  const target = storage.collection(db, targetName);
  if (!onId && target) {
    const wanted = [...on].sort().join(",");
    const unique = [...target.indexes.values()].some(
      (index) => index.spec.unique && index.spec.partialFilterExpression === undefined && index.spec.fields.map((field) => field.path).sort().join(",") === wanted,
    );
    if (!unique) throw new EngineError(51183, "Cannot find index to verify that join fields will be unique");
  }
  const pipelineUpdate = Array.isArray(output.whenMatched) ? output.whenMatched : undefined;
  for (const raw of output.docs) {
    const source = onId ? prepareInsertDocument(raw) : raw;
    const filter: Document = {};
    for (const field of on) {
      const value = valueAt(source, field);
      if (value === undefined || value === null || Array.isArray(value)) {
        throw new EngineError(51132, `$merge write error: 'on' field '${field}' cannot be missing, null, undefined or an array`);
      }
      filter[field] = value;
    }
    const current = storage.collection(db, targetName);
    const matched = current ? prepareQuery(current, { filter, limit: 1 }).run().next() : undefined;
    const existing = matched && !matched.done ? matched.value.doc : undefined;
    if (!existing) {
      if (output.whenNotMatched === "discard") continue;
      if (output.whenNotMatched === "fail") {
        throw new EngineError(13113, "$merge could not find a matching document in the target collection for at least one document in the source collection");
      }
      ctx.commit([{ op: "insert", db, collection: targetName, doc: prepareInsertDocument(source) }]);
      continue;
    }
    let after: Document;
    if (pipelineUpdate) {
      const update = compileUpdate(pipelineUpdate, { variables: { ...(output.let ?? {}), new: source } });
      after = update.apply(existing, { isInsert: false }).doc;
    } else {
      switch (output.whenMatched) {
        case "keepExisting":
          continue;
        case "fail":
          throw new EngineError(
            ErrorCodes.DuplicateKey,
            `$merge failed: a document with ${on.map((field) => `${field}`).join(", ")} already exists in ${db}.${targetName}`,
            { keyValue: filter },
          );
        case "replace":
          after = { ...source, _id: existing["_id"] };
          break;
        default:
          after = { ...existing, ...source, _id: existing["_id"] };
      }
    }
    if (equalityKey(after) === equalityKey(existing)) continue;
    const ordered = "_id" in after && Object.keys(after)[0] !== "_id" ? { _id: after["_id"], ...after } : after;
    ctx.commit([{ op: "update", db, collection: targetName, before: existing, after: ordered }]);
  }
}

function valueAt(doc: Document, path: string): unknown {
  let current: unknown = doc;
  for (const part of path.split(".")) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    current = (current as Document)[part];
  }
  return current;
}
