import { Aggregator } from "mingo";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { fromMingo, toMingo } from "./expression-fallback.js";
import type { Collation, Document } from "./types.js";

/** What a delegated stage may need from the pipeline run. */
export interface MingoStageOptions {
  readonly collation?: Collation;
  readonly resolve: (collection: string) => Document[];
  readonly variables?: Readonly<Record<string, unknown>>;
  readonly now?: Date;
}

/**
 * Runs one pipeline stage in mingo (for stages the engine does not implement natively:
 * `$setWindowFields`, `$densify`, `$fill`, `$bucketAuto`, `$graphLookup`). Documents are converted to
 * JS values and back: Int32/Double become JS numbers (integral results come back as Int32), Long
 * beyond 2^53 and Decimal128 travel as opaque values that come back unchanged if the stage only
 * passes them through, and make the stage fail if it computes with them.
 *
 * @example
 * runMingoStage("$densify", { field: "n", range: { step: 1, bounds: "full" } }, docs, { resolve: () => [] });
 */
export function runMingoStage(name: string, spec: unknown, docs: Document[], options: MingoStageOptions): Document[] {
  const agg = new Aggregator([{ [name]: toMingo(spec) }], {
    collation: options.collation as never,
    collectionResolver: (coll: string) => options.resolve(coll).map((d) => toMingo(d) as Record<string, unknown>),
    variables: options.variables === undefined ? undefined : (toMingo(options.variables) as Record<string, unknown>),
    scriptEnabled: false,
  });
  try {
    const out = agg.run(docs.map((d) => toMingo(d) as Record<string, unknown>));
    return out.map((d) => fromMingo(d, "int") as Document);
  } catch (e) {
    if (e instanceof EngineError) throw e;
    throw new EngineError(ErrorCodes.BadValue, `${name}: ${(e as Error).message}`);
  }
}
