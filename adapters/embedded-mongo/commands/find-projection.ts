import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { PreparedQuery } from "./query-execution.js";

/**
 * Compiles a `find`/`findAndModify` projection into a per-document transform, feeding the
 * positional `$` projection the array position the query matched.
 *
 * @example
 * const project = compileFindProjection({title: 1}, query);
 * project(doc); // {_id, title}
 */
export function compileFindProjection(projection: Document, query: PreparedQuery): (doc: Document) => Document {
  void query;
  // Waits for the query library's compileProjection (see query/REQUESTS.md).
  throw new EngineError(ErrorCodes.NotImplemented, `projection ${JSON.stringify(projection)} is not supported yet`);
}
