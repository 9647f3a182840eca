import type { Document } from "bson";
import { optionFlag, optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";

/** One field of an index key pattern: ascending/descending, or a special index type we only store. */
export interface IndexKeyField {
  readonly path: string;
  /** 1 or -1 for ordered fields; 0 for special types ("text", "2dsphere", "hashed"...). */
  readonly direction: 1 | -1 | 0;
}

/**
 * A validated index specification. `document` is what `listIndexes` returns (the request as sent,
 * plus `v: 2`), so mongoose's `syncIndexes` sees exactly the options it asked for.
 */
export interface IndexSpec {
  readonly name: string;
  readonly fields: readonly IndexKeyField[];
  readonly keyPattern: Document;
  readonly unique: boolean;
  readonly sparse: boolean;
  readonly partialFilterExpression?: Document;
  readonly expireAfterSeconds?: number;
  readonly collation?: Document;
  /** Any field is a special type: the index is stored and listed but never used by the planner. */
  readonly special: boolean;
  readonly document: Document;
}

/** Options accepted in an index specification; anything else is rejected like MongoDB does. */
const KNOWN_OPTIONS = new Set([
  "key", "name", "v", "unique", "sparse", "partialFilterExpression", "expireAfterSeconds", "collation",
  "background", "hidden", "ns", "weights", "default_language", "language_override", "textIndexVersion",
  "2dsphereIndexVersion", "bits", "min", "max", "wildcardProjection", "storageEngine", "dropDups",
]);

/**
 * Validates a `createIndexes` entry and normalizes it.
 *
 * @example
 * parseIndexSpec({key: {email: 1}, name: "email_1", unique: true}).unique; // true
 */
export function parseIndexSpec(raw: Document): IndexSpec {
  const key = raw["key"];
  if (!isPlainDocument(key) || Object.keys(key).length === 0) {
    throw new EngineError(ErrorCodes.FailedToParse, "The 'key' field must be a non-empty object in an index specification");
  }
  const name = raw["name"];
  if (typeof name !== "string" || name.length === 0) {
    throw new EngineError(
      ErrorCodes.FailedToParse,
      "The 'name' field is a required property of an index specification",
    );
  }
  for (const option of Object.keys(raw)) {
    if (!KNOWN_OPTIONS.has(option)) {
      throw new EngineError(
        ErrorCodes.InvalidIndexSpecificationOption,
        `The field '${option}' is not valid for an index specification. Specification: ${JSON.stringify(raw)}`,
      );
    }
  }
  const fields: IndexKeyField[] = [];
  let special = false;
  for (const [path, value] of Object.entries(key)) {
    if (path.length === 0 || path.startsWith("$") && path !== "$**" || path.split(".").some((part) => part === "")) {
      throw new EngineError(ErrorCodes.CannotCreateIndex, `Index key contains an illegal field name: '${path}'`);
    }
    if (typeof value === "string") {
      special = true;
      fields.push({ path, direction: 0 });
      continue;
    }
    const n = optionNumber(value);
    if (n === undefined || n === 0 || Number.isNaN(n)) {
      throw new EngineError(
        ErrorCodes.CannotCreateIndex,
        `Values in the index key pattern can't be 0, NaN or non-numbers: ${path}: ${String(value)}`,
      );
    }
    fields.push({ path, direction: n > 0 ? 1 : -1 });
  }
  const isIdIndex = fields.length === 1 && fields[0]!.path === "_id" && fields[0]!.direction === 1;
  const unique = optionFlag(raw["unique"]);
  if (isIdIndex && name === "_id_" && (raw["unique"] !== undefined || raw["sparse"] !== undefined)) {
    throw new EngineError(
      ErrorCodes.InvalidIndexSpecificationOption,
      `The field '${raw["unique"] !== undefined ? "unique" : "sparse"}' is not valid for an _id index specification.`,
    );
  }
  const partial = raw["partialFilterExpression"];
  if (partial !== undefined && !isPlainDocument(partial)) {
    throw new EngineError(ErrorCodes.TypeMismatch, "partialFilterExpression must be an object");
  }
  if (partial !== undefined && optionFlag(raw["sparse"])) {
    throw new EngineError(ErrorCodes.CannotCreateIndex, "cannot mix \"partialFilterExpression\" and \"sparse\" options");
  }
  let expireAfterSeconds: number | undefined;
  if (raw["expireAfterSeconds"] !== undefined) {
    expireAfterSeconds = optionNumber(raw["expireAfterSeconds"]);
    if (expireAfterSeconds === undefined || expireAfterSeconds < 0 || Number.isNaN(expireAfterSeconds)) {
      throw new EngineError(ErrorCodes.CannotCreateIndex, "TTL index 'expireAfterSeconds' option must be a non-negative number");
    }
    if (fields.length !== 1) {
      throw new EngineError(ErrorCodes.CannotCreateIndex, "TTL indexes are single-field indexes, compound indexes do not support TTL");
    }
  }
  const collation = raw["collation"];
  if (collation !== undefined && !isPlainDocument(collation)) {
    throw new EngineError(ErrorCodes.TypeMismatch, "collation must be an object");
  }
  const document: Document = { v: 2, key, name };
  for (const [option, value] of Object.entries(raw)) {
    if (option !== "v" && option !== "key" && option !== "name" && option !== "ns") document[option] = value;
  }
  const simpleCollation = collation === undefined || collation["locale"] === "simple";
  return {
    name,
    fields,
    keyPattern: key,
    unique: unique || (isIdIndex && name === "_id_"),
    sparse: optionFlag(raw["sparse"]),
    ...(partial !== undefined ? { partialFilterExpression: partial as Document } : {}),
    ...(expireAfterSeconds !== undefined ? { expireAfterSeconds } : {}),
    ...(simpleCollation ? {} : { collation: collation as Document }),
    special,
    document,
  };
}

/** The `_id_` index every collection has. */
export function idIndexSpec(): IndexSpec {
  return parseIndexSpec({ key: { _id: 1 }, name: "_id_" });
}

/**
 * The name MongoDB generates for a key pattern: `field_direction` pairs joined by `_`.
 *
 * @example
 * defaultIndexName({a: 1, "b.c": -1}); // "a_1_b.c_-1"
 */
export function defaultIndexName(keyPattern: Document): string {
  return Object.entries(keyPattern)
    .map(([path, value]) => `${path}_${typeof value === "string" ? value : String(optionNumber(value) ?? value)}`)
    .join("_");
}

/** Two specs index the same keys in the same order. */
export function sameKeyPattern(a: IndexSpec, b: IndexSpec): boolean {
  if (a.fields.length !== b.fields.length) return false;
  return a.fields.every((field, i) => {
    const other = b.fields[i]!;
    if (field.path !== other.path || field.direction !== other.direction) return false;
    // Special types must match by name ("text" vs "2dsphere").
    return field.direction !== 0 || a.keyPattern[field.path] === b.keyPattern[other.path];
  });
}

/** Two specs with the same key pattern also agree on every option that changes behaviour. */
export function sameIndexOptions(a: IndexSpec, b: IndexSpec): boolean {
  return (
    a.unique === b.unique &&
    a.sparse === b.sparse &&
    a.expireAfterSeconds === b.expireAfterSeconds &&
    canonical(a.partialFilterExpression) === canonical(b.partialFilterExpression) &&
    canonical(a.collation) === canonical(b.collation)
  );
}

/** Whether the two may coexist as distinct indexes on one key pattern (MongoDB 5.0+ rule). */
export function distinguishableSpecs(a: IndexSpec, b: IndexSpec): boolean {
  return (
    canonical(a.partialFilterExpression) !== canonical(b.partialFilterExpression) ||
    canonical(a.collation) !== canonical(b.collation)
  );
}

function canonical(value: Document | undefined): string {
  return value === undefined ? "" : JSON.stringify(value);
}

function isPlainDocument(value: unknown): value is Document {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}
