import { EngineError, ErrorCodes } from "../engine-error.js";
import { compareValues, stringComparator } from "./bson-order.js";
import type { StringComparator } from "./bson-order.js";
import { arrayIndexOf, isDocument } from "./document-path.js";
import { numericKind, toDouble } from "./numeric.js";
import type { Collation, Document } from "./types.js";

/**
 * A compiled sort: call it as a comparator, or use `sort()` which computes every document's sort
 * key once (decorate-sort-undecorate) and is much faster for large inputs.
 *
 * @example
 * const byAge = compileSort({ age: -1, name: 1 });
 * docs.sort(byAge);          // comparator form
 * const sorted = byAge.sort(docs); // keyed form, returns a new array
 */
export interface CompiledSort {
  (a: Document, b: Document): number;
  /** The sort key of a document: one value per sort field (min/max element for arrays). */
  keyOf(doc: Document): unknown[];
  /** Compares two keys produced by `keyOf`, honouring directions and the collation. */
  compareKeys(a: readonly unknown[], b: readonly unknown[]): number;
  /** Returns a new array sorted stably by this sort. */
  sort<T extends Document>(docs: readonly T[]): T[];
  /** The parsed fields, in order. */
  readonly fields: readonly { readonly path: string; readonly direction: 1 | -1 }[];
}

/**
 * Marks an empty array reached by a sort path. The server's sort key for `[]` is `undefined`, which
 * orders below null/missing in both directions (see DOCS-2760).
 */
const EMPTY_ARRAY_KEY: unique symbol = Symbol("emptyArraySortKey");

function compareKeyValues(a: unknown, b: unknown, cmp: StringComparator | undefined): number {
  if (a === EMPTY_ARRAY_KEY || b === EMPTY_ARRAY_KEY) {
    if (a === b) return 0;
    const other = a === EMPTY_ARRAY_KEY ? b : a;
    // Only MinKey ranks lower than an empty array's key.
    const otherIsMinKey = typeof other === "object" && other !== null && (other as { _bsontype?: unknown })._bsontype === "MinKey";
    const emptyFirst = otherIsMinKey ? 1 : -1;
    return a === EMPTY_ARRAY_KEY ? emptyFirst : -emptyFirst;
  }
  return compareValues(a, b, cmp);
}

/**
 * Parses a sort direction (`1`, `-1` as any numeric type). `{$meta: ...}` throws BadValue: text
 * scores and other metadata do not exist in the embedded engine.
 *
 * @example
 * parseSortDirection(new Int32(-1), "a"); // -1
 */
export function parseSortDirection(v: unknown, path: string): 1 | -1 {
  if (isDocument(v) && "$meta" in v) {
    throw new EngineError(ErrorCodes.BadValue, `$meta sort by ${JSON.stringify(v.$meta)} is not supported by the embedded engine (field '${path}')`);
  }
  if (numericKind(v) !== undefined) {
    const d = toDouble(v);
    if (d === 1) return 1;
    if (d === -1) return -1;
  }
  throw new EngineError(15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)");
}

/**
 * Compiles a sort specification into a comparator. Follows MongoDB: missing fields sort as null; a
 * path reaching an array sorts by its smallest element ascending and its largest descending (paths
 * through arrays of documents collect every reachable value); an empty array sorts below null;
 * strings use the collation when given. An empty spec compares everything equal.
 *
 * @example
 * const cmp = compileSort({ score: -1 }, { locale: "en", strength: 2 });
 * [{ score: 1 }, { score: [0, 5] }].sort(cmp); // [{score: [0, 5]}, {score: 1}]
 */
export function compileSort(spec: Document, collation?: Collation): CompiledSort {
  if (!isDocument(spec)) throw new EngineError(ErrorCodes.BadValue, "sort specification must be an object");
  const cmp = stringComparator(collation);
  const fields = Object.keys(spec).map((path) => {
    if (path === "") throw new EngineError(40352, "FieldPath cannot be constructed with empty string");
    return { path, direction: parseSortDirection(spec[path], path) };
  });
  const extractors = fields.map((f) => keyExtractor(f.path.split("."), f.direction, cmp));
  const dirs = fields.map((f) => f.direction);
  const n = fields.length;

  const keyOf = (doc: Document): unknown[] => {
    const key = new Array<unknown>(n);
    for (let i = 0; i < n; i++) key[i] = extractors[i]!(doc);
    return key;
  };
  const compareKeys = (a: readonly unknown[], b: readonly unknown[]): number => {
    for (let i = 0; i < n; i++) {
      const c = compareKeyValues(a[i], b[i], cmp);
      if (c !== 0) return c * dirs[i]!;
    }
    return 0;
  };
  const comparator = ((a: Document, b: Document): number => {
    for (let i = 0; i < n; i++) {
      const c = compareKeyValues(extractors[i]!(a), extractors[i]!(b), cmp);
      if (c !== 0) return c * dirs[i]!;
    }
    return 0;
  }) as CompiledSort;
  const sortDocs = <T extends Document>(docs: readonly T[]): T[] => {
    if (n === 0) return docs.slice();
    const decorated = docs.map((doc, i) => ({ doc, key: keyOf(doc), i }));
    decorated.sort((x, y) => compareKeys(x.key, y.key) || x.i - y.i);
    return decorated.map((d) => d.doc);
  };
  Object.defineProperties(comparator, {
    keyOf: { value: keyOf },
    compareKeys: { value: compareKeys },
    sort: { value: sortDocs },
    fields: { value: fields },
  });
  return comparator;
}

/** The per-document sort key of one path: the min (ascending) or max (descending) reachable value. */
function keyExtractor(parts: string[], direction: 1 | -1, cmp: StringComparator | undefined): (doc: Document) => unknown {
  if (parts.length === 1) {
    const f = parts[0]!;
    return (doc) => {
      const v = Object.prototype.hasOwnProperty.call(doc, f) ? doc[f] : undefined;
      if (!Array.isArray(v)) return v === undefined ? null : v;
      return pickFromArray(v, direction, cmp);
    };
  }
  return (doc) => {
    let best: unknown;
    let have = false;
    const consider = (x: unknown): void => {
      if (!have) {
        best = x;
        have = true;
        return;
      }
      const c = compareKeyValues(x, best, cmp);
      if (direction === 1 ? c < 0 : c > 0) best = x;
    };
    // Index-key semantics (what find's sort uses): every value reachable through arrays of
    // documents is a candidate; a numeric component after an array selects that element only;
    // non-document elements in the middle of the path contribute null.
    const collect = (value: unknown, i: number): void => {
      if (i === parts.length) {
        if (Array.isArray(value)) {
          if (value.length === 0) consider(EMPTY_ARRAY_KEY);
          else for (const e of value) consider(e === undefined ? null : e);
        } else consider(value === undefined ? null : value);
        return;
      }
      if (Array.isArray(value)) {
        const idx = arrayIndexOf(parts[i]!);
        if (idx >= 0) {
          collect(idx < value.length ? value[idx] : undefined, i + 1);
          return;
        }
        if (value.length === 0) consider(null);
        for (const e of value) {
          if (isDocument(e)) collect(e, i);
          else consider(null);
        }
        return;
      }
      if (isDocument(value)) {
        const v = Object.prototype.hasOwnProperty.call(value, parts[i]!) ? value[parts[i]!] : undefined;
        collect(v, i + 1);
        return;
      }
      consider(null);
    };
    collect(doc, 0);
    return have ? best : null;
  };
}

function pickFromArray(arr: unknown[], direction: 1 | -1, cmp: StringComparator | undefined): unknown {
  if (arr.length === 0) return EMPTY_ARRAY_KEY;
  let best = arr[0];
  for (let i = 1; i < arr.length; i++) {
    const c = compareValues(arr[i], best, cmp);
    if (direction === 1 ? c < 0 : c > 0) best = arr[i];
  }
  return best === undefined ? null : best;
}
