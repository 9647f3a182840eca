import { EngineError, ErrorCodes } from "../engine-error.js";
import { isDocument } from "./document-path.js";
import { isQueryOperatorObject } from "./filter.js";
import type { Document } from "./types.js";
import { DocWriter } from "./update-paths.js";

function isRegex(v: unknown): boolean {
  return v instanceof RegExp || (typeof v === "object" && v !== null && (v as { _bsontype?: unknown })._bsontype === "BSONRegExp");
}

/**
 * Builds the base document of an upsert from the filter's equality conditions, as the server does:
 * implicit equality and `$eq` on paths AND-ed at the top level (including inside `$and`, a single-
 * branch `$or`/`$nor`-free tree, and one-element `$in`/`$all`, which the server simplifies to
 * equality). Ranges, regexes and multi-branch `$or` contribute nothing. Dotted paths create
 * embedded documents. Two conditions on the same or overlapping paths throw NotSingleValueField (54).
 *
 * @example
 * upsertSeed({ _id: 7, "a.b": 1, n: { $gt: 5 }, $and: [{ c: { $eq: "x" } }] });
 * // { _id: 7, a: { b: 1 }, c: "x" }
 */
export function upsertSeed(filter: Document): Document {
  const found: { path: string; value: unknown }[] = [];
  collect(filter, found);
  for (let i = 0; i < found.length; i++) {
    for (let j = i + 1; j < found.length; j++) {
      const a = found[i]!.path;
      const b = found[j]!.path;
      if (a === b) throw new EngineError(ErrorCodes.NotSingleValueField, `cannot infer query fields to set, path '${a}' is matched twice`);
      if (b.startsWith(a + ".") || a.startsWith(b + ".")) {
        throw new EngineError(ErrorCodes.NotSingleValueField, `cannot infer query fields to set, both paths '${a}' and '${b}' are matched`);
      }
    }
  }
  const w = new DocWriter({});
  for (const { path, value } of found) w.set(path.split("."), value);
  const seed = w.root;
  if (Object.prototype.hasOwnProperty.call(seed, "_id") && Object.keys(seed)[0] !== "_id") return { _id: seed._id, ...seed };
  return seed;
}

function collect(filter: Document, out: { path: string; value: unknown }[]): void {
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    if (key === "$and" || key === "$or") {
      // A single-branch $or is just its branch once the server has optimised the query.
      if (Array.isArray(value) && (key === "$and" || value.length === 1)) {
        for (const sub of value) if (isDocument(sub)) collect(sub, out);
      }
      continue;
    }
    if (key.startsWith("$")) continue;
    if (isQueryOperatorObject(value)) {
      const ops = value as Document;
      for (const op of Object.keys(ops)) {
        const arg = ops[op];
        if (op === "$eq" && !isRegex(arg)) out.push({ path: key, value: arg });
        else if ((op === "$in" || op === "$all") && Array.isArray(arg) && arg.length === 1 && !isRegex(arg[0]) && !isQueryOperatorObject(arg[0])) {
          out.push({ path: key, value: arg[0] });
        }
      }
      continue;
    }
    if (isRegex(value)) continue;
    out.push({ path: key, value });
  }
}
