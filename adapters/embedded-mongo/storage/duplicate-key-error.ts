import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { IndexKey } from "./index-keys.js";
import type { IndexSpec } from "./index-spec.js";

/**
 * Builds MongoDB's duplicate-key error: code 11000, the exact errmsg layout
 * (`E11000 duplicate key error collection: db.coll index: name_1 dup key: { name: "x" }`) and the
 * `keyPattern`/`keyValue` fields that drivers and mongoose read.
 *
 * @example
 * throw duplicateKeyError("app.users", spec, ["a@b.c"]);
 */
export function duplicateKeyError(ns: string, spec: IndexSpec, key: IndexKey): EngineError {
  const keyValue: Document = {};
  spec.fields.forEach((field, i) => {
    keyValue[field.path] = key[i] === undefined ? null : key[i];
  });
  const shown = spec.fields.map((field, i) => `${field.path}: ${formatValue(key[i])}`).join(", ");
  return new EngineError(
    ErrorCodes.DuplicateKey,
    `E11000 duplicate key error collection: ${ns} index: ${spec.name} dup key: { ${shown} }`,
    { keyPattern: spec.keyPattern, keyValue },
  );
}

/**
 * Renders a BSON value the way the server's log/error messages do (shell-like syntax).
 *
 * @example
 * formatValue(new ObjectId("...")); // "ObjectId('6540...')"
 */
export function formatValue(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[ ${value.map(formatValue).join(", ")} ]`;
  const tag = (value as { _bsontype?: string })._bsontype;
  switch (tag) {
    case "ObjectId":
      return `ObjectId('${(value as { toHexString(): string }).toHexString()}')`;
    case "Int32":
    case "Long":
      return String(value);
    case "Double": {
      const n = (value as { value: number }).value;
      return Number.isInteger(n) ? `${n}.0` : String(n);
    }
    case "Decimal128":
      return `${String(value)}`;
    case "BSONRegExp": {
      const regex = value as { pattern: string; options: string };
      return `/${regex.pattern}/${regex.options}`;
    }
    case undefined: {
      const entries = Object.entries(value as Document);
      return entries.length === 0 ? "{}" : `{ ${entries.map(([k, v]) => `${k}: ${formatValue(v)}`).join(", ")} }`;
    }
    default:
      return String(value);
  }
}
