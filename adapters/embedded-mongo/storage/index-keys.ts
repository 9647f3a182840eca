import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { IndexKeyField } from "./index-spec.js";

/** One index key: the values of the index's fields, in key-pattern order. */
export type IndexKey = readonly unknown[];

/** Result of extracting a document's keys for one index. */
export interface ExtractedKeys {
  /** Distinct keys (several when a field holds an array: a multikey entry per element). */
  readonly keys: IndexKey[];
  /** Some field traversed an array. */
  readonly multikey: boolean;
  /** No indexed field exists in the document (a sparse index skips such documents). */
  readonly allMissing: boolean;
}

const MISSING = Symbol("missing");

/**
 * Computes the index keys of a document the way MongoDB's key generator does: a missing field
 * keys as `null`, an array field yields one key per element (an empty array keys as `[]`), a
 * dotted path walks through arrays of sub-documents, and two array fields in one compound key
 * are refused (CannotIndexParallelArrays, 171).
 *
 * @example
 * extractIndexKeys({tags: ["a", "b"]}, [{path: "tags", direction: 1}]).keys; // [["a"], ["b"]]
 */
export function extractIndexKeys(doc: Document, fields: readonly IndexKeyField[]): ExtractedKeys {
  let multikey = false;
  let allMissing = true;
  let arrayField: string | undefined;
  const perField: unknown[][] = [];
  for (const field of fields) {
    const values: unknown[] = [];
    const traversedArray = collect(doc, field.path.split("."), 0, values);
    let present = false;
    for (let i = 0; i < values.length; i++) {
      if (values[i] === MISSING) values[i] = null;
      else present = true;
    }
    if (present) allMissing = false;
    if (traversedArray) {
      if (arrayField !== undefined && arrayField !== field.path) {
        throw new EngineError(
          ErrorCodes.CannotIndexParallelArrays,
          `cannot index parallel arrays [${field.path}] [${arrayField}]`,
        );
      }
      arrayField = field.path;
      multikey = true;
    }
    perField.push(values);
  }
  if (!multikey) return { keys: [perField.map((values) => values[0])], multikey, allMissing };
  let keys: unknown[][] = [[]];
  for (const values of perField) {
    const next: unknown[][] = [];
    for (const prefix of keys) for (const value of dedupe(values)) next.push([...prefix, value]);
    keys = next;
  }
  return { keys, multikey, allMissing };
}

/** Pushes the values found at `parts[i..]` under `value`; returns whether an array was expanded. */
function collect(value: unknown, parts: readonly string[], i: number, out: unknown[]): boolean {
  if (i === parts.length) {
    if (Array.isArray(value)) {
      if (value.length === 0) out.push([]);
      else for (const element of value) out.push(element);
      return true;
    }
    out.push(value === undefined ? MISSING : value);
    return false;
  }
  const part = parts[i]!;
  if (Array.isArray(value)) {
    if (/^\d+$/.test(part)) {
      // "a.0" addresses the first element (positional path), not a field named "0".
      const element = value[Number(part)];
      return collect(element, parts, i + 1, out);
    }
    if (value.length === 0) {
      out.push(MISSING);
      return true;
    }
    for (const element of value) {
      if (isSubDocument(element)) collect(element[part], parts, i + 1, out);
      else out.push(MISSING);
    }
    return true;
  }
  if (isSubDocument(value)) return collect(value[part], parts, i + 1, out);
  out.push(MISSING);
  return false;
}

function isSubDocument(value: unknown): value is Document {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    (value as { _bsontype?: unknown })._bsontype === undefined &&
    !(value instanceof Date)
  );
}

/** Removes repeated primitives cheaply; repeated BSON objects only cost a duplicate key entry. */
function dedupe(values: unknown[]): unknown[] {
  if (values.length < 2) return values;
  const seen = new Set<unknown>();
  const out: unknown[] = [];
  for (const value of values) {
    const identity = typeof value === "object" && value !== null ? value : `${typeof value}:${String(value)}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    out.push(value);
  }
  return out;
}
