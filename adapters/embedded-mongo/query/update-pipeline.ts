import { EngineError, ErrorCodes } from "../engine-error.js";
import type { Collation, Document } from "./types.js";

/** Placeholder until the aggregation module lands. */
export function compileUpdatePipeline(
  _pipeline: readonly Document[],
  _options: { collation?: Collation; variables?: Readonly<Record<string, unknown>> },
): (doc: Document, now: Date) => Document {
  throw new EngineError(ErrorCodes.BadValue, "pipeline updates are not implemented yet");
}
