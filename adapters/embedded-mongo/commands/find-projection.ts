import type { Document } from "bson";
import { compileProjection } from "../query/index.js";
import type { PreparedQuery } from "./query-execution.js";

/**
 * Compiles a `find`/`findAndModify` projection (the query library's `compileProjection`) into a
 * per-document transform. A positional projection (`"arr.$": 1`) is fed the array position the
 * query matched, which only the query's matcher knows.
 *
 * @example
 * const project = compileFindProjection({title: 1}, query);
 * project(doc); // {_id, title}
 */
export function compileFindProjection(projection: Document, query: PreparedQuery): (doc: Document) => Document {
  const compiled = compileProjection(projection, { mode: "find" });
  const positional = Object.keys(projection).some((path) => path === "$" || path.endsWith(".$"));
  if (!positional) return (doc) => compiled.apply(doc);
  return (doc) => {
    const details = query.matcher.matchDetails(doc);
    return compiled.apply(doc, details.positional !== undefined ? { positional: details.positional } : {});
  };
}
