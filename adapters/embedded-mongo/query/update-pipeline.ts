import { EngineError, ErrorCodes } from "../engine-error.js";
import { compilePipeline } from "./aggregate.js";
import { isDocument } from "./document-path.js";
import type { Collation, Document } from "./types.js";

const ALLOWED = new Set(["$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith"]);

/**
 * Compiles a pipeline-style update (an array of `$set`/`$addFields`/`$project`/`$unset`/
 * `$replaceRoot`/`$replaceWith` stages) into a function from the current document to the new one.
 * Other stages throw InvalidOptions (72), like the server.
 *
 * @example
 * const run = compileUpdatePipeline([{ $set: { total: { $add: ["$a", "$b"] } } }], {});
 * run({ _id: 1, a: new Int32(1), b: new Int32(2) }, new Date()); // {_id: 1, a: 1, b: 2, total: Int32(3)}
 */
export function compileUpdatePipeline(
  pipeline: readonly Document[],
  options: { collation?: Collation; variables?: Readonly<Record<string, unknown>> },
): (doc: Document, now: Date) => Document {
  for (const stage of pipeline) {
    const name = isDocument(stage) ? Object.keys(stage)[0] : undefined;
    if (name === undefined || !ALLOWED.has(name)) {
      throw new EngineError(ErrorCodes.InvalidOptions, `${name ?? "stage"} is not allowed to be used within an update`);
    }
  }
  const compiled = compilePipeline(pipeline, { collation: options.collation });
  return (doc, now) => {
    const { results } = compiled.run([doc], {
      resolveCollection: () => [],
      collation: options.collation,
      variables: options.variables,
      now,
    });
    return results[0] ?? {};
  };
}
