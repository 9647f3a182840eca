import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CollectionOptions } from "./write-ops.js";

/** A view: the namespace it reads (`viewOn`, same database) and the pipeline applied on top. */
export interface ViewDefinition {
  readonly viewOn: string;
  readonly pipeline: readonly Document[];
}

/**
 * The view a catalog entry stands for, read from its options (`viewOn`, `pipeline`), which is how
 * `listCollections`, the journal and snapshots carry it.
 *
 * @example
 * viewDefinitionOf({other: {viewOn: "orders", pipeline: [{$match: {paid: true}}]}}); // {viewOn: "orders", pipeline: [...]}
 */
export function viewDefinitionOf(options: CollectionOptions): ViewDefinition | undefined {
  const viewOn = options.other?.["viewOn"];
  if (typeof viewOn !== "string") return undefined;
  const pipeline = options.other?.["pipeline"];
  return { viewOn, pipeline: Array.isArray(pipeline) ? (pipeline as Document[]) : [] };
}

/**
 * Whether a collection keeps pre- and post-images for change streams (`changeStreamPreAndPostImages:
 * {enabled: true}`, set by `create` or `collMod`).
 *
 * @example
 * preAndPostImagesEnabled({other: {changeStreamPreAndPostImages: {enabled: true}}}); // true
 */
export function preAndPostImagesEnabled(options: CollectionOptions): boolean {
  const setting = options.other?.["changeStreamPreAndPostImages"] as Document | undefined;
  return setting?.["enabled"] === true;
}

/**
 * Validates the `changeStreamPreAndPostImages` argument of `create`/`collMod` as mongod does:
 * a document with exactly a boolean `enabled`.
 *
 * @example
 * parsePreAndPostImagesOption({enabled: true}, "collMod"); // {enabled: true}
 */
export function parsePreAndPostImagesOption(value: unknown, command: string): { enabled: boolean } {
  const field = `${command}.changeStreamPreAndPostImages`;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new EngineError(ErrorCodes.TypeMismatch, `BSON field '${field}' is the wrong type, expected type 'object'`);
  }
  const document = value as Document;
  for (const key of Object.keys(document)) {
    if (key !== "enabled") throw new EngineError(40415, `BSON field '${field}.${key}' is an unknown field.`);
  }
  if (typeof document["enabled"] !== "boolean") {
    throw new EngineError(
      document["enabled"] === undefined ? 40414 : ErrorCodes.TypeMismatch,
      document["enabled"] === undefined
        ? `BSON field '${field}.enabled' is missing but a required field`
        : `BSON field '${field}.enabled' is the wrong type, expected type 'bool'`,
    );
  }
  return { enabled: document["enabled"] };
}
