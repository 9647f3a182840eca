import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { parsePreAndPostImagesOption } from "../storage/collection-options.js";
import type { CollectionData } from "../storage/collection-data.js";
import type { CollModOp } from "../storage/write-ops.js";
import type { CommandContext, CommandHandler } from "./command-context.js";
import { parseValidationAction, parseValidationLevel } from "./collection-commands.js";
import { documentArgument, GENERIC_COMMAND_FIELDS, isPlainDocument, targetCollection } from "./command-arguments.js";
import { parseViewDefinition } from "./view-definition.js";

const COLLECTION_OPTIONS = new Set(["index", "validator", "validationLevel", "validationAction", "changeStreamPreAndPostImages"]);
const VIEW_OPTIONS = new Set(["viewOn", "pipeline"]);

/**
 * `collMod`: validator settings (`validator`, `validationLevel`, `validationAction`),
 * `changeStreamPreAndPostImages: {enabled}`, one index's `expireAfterSeconds`/`hidden`
 * (`index: {name | keyPattern, ...}`, reply `expireAfterSeconds_old/_new`, `hidden_old/_new`),
 * and for a view its `viewOn` + `pipeline`. Unknown fields → 40415, view options on a
 * collection or collection options on a view → InvalidOptions (72), as mongod.
 *
 * @example
 * await engine.runCommand("app", {collMod: "orders", changeStreamPreAndPostImages: {enabled: true}});
 */
export const collModCommand: CommandHandler = (ctx) => {
  const name = targetCollection(ctx);
  const collection = ctx.view.collection(ctx.db, name);
  if (!collection) throw new EngineError(ErrorCodes.NamespaceNotFound, `ns does not exist: ${ctx.db}.${name}`);
  for (const field of Object.keys(ctx.command)) {
    if (field === "collMod" || GENERIC_COMMAND_FIELDS.has(field)) continue;
    if (!COLLECTION_OPTIONS.has(field) && !VIEW_OPTIONS.has(field)) throw new EngineError(40415, `BSON field 'collMod.${field}' is an unknown field.`);
    if (collection.view ? !VIEW_OPTIONS.has(field) : !COLLECTION_OPTIONS.has(field)) {
      throw new EngineError(ErrorCodes.InvalidOptions, collection.view ? `option not supported on a view: ${field}` : `option only supported on a view: ${field}`);
    }
  }
  if (collection.view) return modifyView(ctx, name);
  const reply: Document = {};
  const indexChanges = indexChangesOf(ctx, collection, reply);
  const validator = documentArgument(ctx, "validator");
  const images = ctx.command["changeStreamPreAndPostImages"];
  const op: CollModOp = {
    op: "collMod",
    db: ctx.db,
    collection: name,
    ...(validator ? { validator } : {}),
    ...(ctx.command["validationLevel"] !== undefined ? { validationLevel: parseValidationLevel(ctx.command["validationLevel"]) } : {}),
    ...(ctx.command["validationAction"] !== undefined ? { validationAction: parseValidationAction(ctx.command["validationAction"]) } : {}),
    ...(images !== undefined ? { changeStreamPreAndPostImages: parsePreAndPostImagesOption(images, "collMod") } : {}),
    ...(indexChanges ? { indexChanges } : {}),
  };
  ctx.commit([op]);
  return { ...reply, ok: 1 };
};

/** `collMod` of a view: a new `viewOn` and `pipeline`, checked like `create`'s. */
function modifyView(ctx: CommandContext, name: string): Document {
  if (ctx.command["viewOn"] === undefined || ctx.command["pipeline"] === undefined) {
    throw new EngineError(ErrorCodes.InvalidOptions, "Must specify both 'viewOn' and 'pipeline' when modifying a view and auth is enabled");
  }
  const view = parseViewDefinition(ctx.view, ctx.db, name, ctx.command["viewOn"], ctx.command["pipeline"]);
  ctx.commit([{ op: "collMod", db: ctx.db, collection: name, view }]);
  return { ok: 1 };
}

/** The `index` argument: which index (by name or key pattern) and what changes, filling `reply`. */
function indexChangesOf(ctx: CommandContext, collection: CollectionData, reply: Document): CollModOp["indexChanges"] {
  const indexArgument = documentArgument(ctx, "index");
  if (!indexArgument) return undefined;
  const keyPattern = indexArgument["keyPattern"];
  const index =
    typeof indexArgument["name"] === "string"
      ? collection.indexes.get(indexArgument["name"])
      : [...collection.indexes.values()].find((candidate) => isPlainDocument(keyPattern) && sameKeyDocument(candidate.spec.keyPattern, keyPattern));
  if (!index) throw new EngineError(ErrorCodes.IndexNotFound, `cannot find index ${JSON.stringify(indexArgument["name"] ?? keyPattern)} for ns ${collection.ns}`);
  const expireAfterSeconds = optionNumber(indexArgument["expireAfterSeconds"]);
  if (indexArgument["expireAfterSeconds"] !== undefined) {
    if (expireAfterSeconds === undefined || Number.isNaN(expireAfterSeconds) || expireAfterSeconds < 0) {
      throw new EngineError(ErrorCodes.InvalidOptions, "expireAfterSeconds must be a number >= 0");
    }
    if (index.spec.expireAfterSeconds === undefined) throw new EngineError(ErrorCodes.InvalidOptions, "no expireAfterSeconds field to update");
    reply["expireAfterSeconds_old"] = index.spec.expireAfterSeconds;
    reply["expireAfterSeconds_new"] = expireAfterSeconds;
  }
  const hidden = indexArgument["hidden"];
  if (hidden !== undefined) {
    if (typeof hidden !== "boolean") throw new EngineError(ErrorCodes.TypeMismatch, "BSON field 'collMod.index.hidden' is the wrong type, expected type 'bool'");
    if (index.name === "_id_") throw new EngineError(ErrorCodes.BadValue, "can't hide _id index");
    reply["hidden_old"] = index.spec.document["hidden"] === true;
    reply["hidden_new"] = hidden;
  }
  return [
    {
      name: index.name,
      ...(expireAfterSeconds !== undefined ? { expireAfterSeconds } : {}),
      ...(typeof hidden === "boolean" ? { hidden } : {}),
    },
  ];
}

function sameKeyDocument(a: Document, b: Document): boolean {
  const ea = Object.entries(a);
  const eb = Object.entries(b);
  return ea.length === eb.length && ea.every(([k, v], i) => k === eb[i]![0] && String(optionNumber(v) ?? v) === String(optionNumber(eb[i]![1]) ?? eb[i]![1]));
}
