import type { Document } from "bson";
import type { Collation } from "../query/index.js";
import { bsonTypeName } from "../query/index.js";
import { parseCollation } from "../query/collation-spec.js";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { assertValidCollectionName } from "../storage/namespace.js";
import type { CommandContext } from "./command-context.js";

/**
 * The collection a command targets: the string value of its first field, validated (73).
 *
 * @example
 * targetCollection(ctx); // "todos" for {find: "todos"}
 */
export function targetCollection(ctx: CommandContext): string {
  const name = ctx.command[ctx.name];
  if (typeof name !== "string") {
    throw new EngineError(
      ErrorCodes.InvalidNamespace,
      `collection name has invalid type ${bsonTypeName(name)}`,
    );
  }
  assertValidCollectionName(ctx.db, name);
  return name;
}

/**
 * An optional sub-document argument (`filter`, `sort`, `projection`...). Wrong type → TypeMismatch
 * (14) with the server's "BSON field" wording.
 */
export function documentArgument(ctx: CommandContext, field: string, source: Document = ctx.command): Document | undefined {
  const value = source[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainDocument(value)) {
    throw new EngineError(
      ErrorCodes.TypeMismatch,
      `BSON field '${ctx.name}.${field}' is the wrong type '${bsonTypeName(value)}', expected type 'object'`,
    );
  }
  return value;
}

/** An optional non-negative integer argument (`limit`, `skip`, `batchSize`). */
export function countArgument(ctx: CommandContext, field: string, source: Document = ctx.command): number | undefined {
  const value = source[field];
  if (value === undefined || value === null) return undefined;
  const n = optionNumber(value);
  if (n === undefined || Number.isNaN(n)) {
    throw new EngineError(
      ErrorCodes.TypeMismatch,
      `BSON field '${ctx.name}.${field}' is the wrong type '${bsonTypeName(value)}', expected types '[long, int, decimal, double]'`,
    );
  }
  if (n < 0) throw new EngineError(ErrorCodes.BadValue, `${field} value must be non-negative, but received: ${n}`);
  return Math.trunc(n);
}

/** An optional boolean argument; numbers count as booleans like the server's `trueValue()`. */
export function flagArgument(ctx: CommandContext, field: string, source: Document = ctx.command): boolean {
  const value = source[field];
  if (value === undefined || value === null) return false;
  if (typeof value === "boolean") return value;
  const n = optionNumber(value);
  if (n !== undefined) return n !== 0;
  throw new EngineError(
    ErrorCodes.TypeMismatch,
    `BSON field '${ctx.name}.${field}' is the wrong type '${bsonTypeName(value)}', expected type 'bool'`,
  );
}

/**
 * The `collation` argument (validated by {@link parseCollation}), or the collection default.
 * `{locale: "simple"}` comes back as given, so binary comparison overrides a collection default.
 */
export function collationArgument(ctx: CommandContext, source: Document = ctx.command, fallback?: Document): Collation | undefined {
  const value = documentArgument(ctx, "collation", source) ?? fallback;
  return value === undefined ? undefined : parseCollation(value);
}

/**
 * An update statement's `arrayFilters`: absent, or an array of filter documents (TypeMismatch
 * otherwise), as `update` and `findAndModify` both take them.
 *
 * @example
 * const arrayFilters = arrayFiltersArgument(statement["arrayFilters"]);
 */
export function arrayFiltersArgument(value: unknown): Document[] | undefined {
  if (value !== undefined && !Array.isArray(value)) {
    throw new EngineError(ErrorCodes.TypeMismatch, "arrayFilters must be an array");
  }
  return value as Document[] | undefined;
}

/** An array argument (`documents`, `updates`, `deletes`, `pipeline`). */
export function arrayArgument(ctx: CommandContext, field: string): unknown[] {
  const value = ctx.command[field];
  if (!Array.isArray(value)) {
    throw new EngineError(
      value === undefined ? ErrorCodes.FailedToParse : ErrorCodes.TypeMismatch,
      value === undefined
        ? `BSON field '${ctx.name}.${field}' is missing but a required field`
        : `BSON field '${ctx.name}.${field}' is the wrong type '${bsonTypeName(value)}', expected type 'array'`,
    );
  }
  return value;
}

export function isPlainDocument(value: unknown): value is Document {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * Fields any command may carry that are not command arguments (drivers add them): handlers that
 * reject unknown fields skip these.
 */
export const GENERIC_COMMAND_FIELDS: ReadonlySet<string> = new Set([
  "$db", "lsid", "$clusterTime", "txnNumber", "autocommit", "startTransaction", "readConcern",
  "writeConcern", "comment", "maxTimeMS", "apiVersion", "apiStrict", "apiDeprecationErrors",
  "$readPreference", "readPreference", "$audit", "$client", "mayBypassWriteBlocking",
]);
