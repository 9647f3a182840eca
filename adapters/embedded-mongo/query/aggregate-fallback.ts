import { Aggregator } from "mingo";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { isDocument } from "./document-path.js";
import { fromMingo, toMingo } from "./expression-fallback.js";
import { numericKind, toDouble } from "./numeric.js";
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
 * `$setWindowFields`, `$densify`, `$fill`, `$bucketAuto`, `$graphLookup`).
 *
 * Only the top-level fields the stage reads are converted to JS values; every other field stays a
 * BSON value that mingo carries through untouched, so Int32/Double/Long/Decimal128 types survive.
 * A field the stage reads that holds Decimal128 or a Long beyond 2^53 makes the stage fail with a
 * clear error: mingo would silently compute a wrong answer (it ignores or string-compares values it
 * cannot treat as numbers). Numbers the stage computes come back as Int32 when integral, Double
 * otherwise.
 *
 * @example
 * runMingoStage("$densify", { field: "n", range: { step: 1, bounds: "full" } }, docs, { resolve: () => [] });
 */
export function runMingoStage(name: string, spec: unknown, docs: Document[], options: MingoStageOptions): Document[] {
  rejectScripts(spec);
  const roots = referencedRoots(name, spec);
  const convert = (d: Document): Record<string, unknown> => convertFields(d, roots, name);
  // $graphLookup reads connectFromField/connectToField of foreign documents, and any field its
  // restrictSearchWithMatch query names (mingo would evaluate that query on BSON wrappers): convert
  // whole foreign documents in that case.
  const foreignRoots: Set<string> | "all" =
    name === "$graphLookup" && isDocument(spec) && spec.restrictSearchWithMatch === undefined
      ? new Set([rootOf(String(spec.connectFromField)), rootOf(String(spec.connectToField))])
      : "all";
  const agg = new Aggregator([{ [name]: toMingo(spec) }], {
    collation: options.collation as never,
    collectionResolver: (coll: string) => options.resolve(coll).map((d) => convertFields(d, foreignRoots, name)),
    variables: options.variables === undefined ? undefined : (toMingo(options.variables) as Record<string, unknown>),
    // mingo implements some window operators with $function internally; user scripts are
    // rejected above, so enabling scripts here only serves mingo's own code.
    scriptEnabled: true,
  });
  try {
    const out = agg.run(docs.map(convert));
    return out.map((d) => fromMingo(d, "int") as Document);
  } catch (e) {
    if (e instanceof EngineError) throw e;
    throw new EngineError(ErrorCodes.BadValue, `${name}: ${(e as Error).message}`);
  }
}

function rootOf(path: string): string {
  const p = path.startsWith("$") ? path.slice(1) : path;
  const dot = p.indexOf(".");
  return dot === -1 ? p : p.slice(0, dot);
}

/** Top-level fields a delegated stage reads, or "all" when it uses `$$ROOT`/`$$CURRENT`. */
function referencedRoots(name: string, spec: unknown): Set<string> | "all" {
  const roots = new Set<string>();
  let all = false;
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      if (v.startsWith("$$")) {
        if (v.startsWith("$$ROOT") || v.startsWith("$$CURRENT")) all = true;
      } else if (v.startsWith("$") && v.length > 1) roots.add(rootOf(v));
      return;
    }
    if (Array.isArray(v)) v.forEach(walk);
    else if (isDocument(v)) Object.values(v).forEach(walk);
  };
  walk(spec);
  if (isDocument(spec)) {
    const names = (v: unknown): void => {
      if (typeof v === "string") roots.add(rootOf(v));
      else if (Array.isArray(v)) v.forEach(names);
    };
    if (isDocument(spec.sortBy)) Object.keys(spec.sortBy).forEach(names);
    names(spec.field);
    names(spec.partitionByFields);
    if (name === "$fill" && isDocument(spec.output)) Object.keys(spec.output).forEach(names);
    names(spec.connectFromField);
    names(spec.connectToField);
  }
  return all ? "all" : roots;
}

function convertFields(doc: Document, roots: Set<string> | "all", stage: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...doc };
  for (const k of Object.keys(doc)) {
    if (roots !== "all" && !roots.has(k)) continue;
    assertExactlyConvertible(doc[k], stage, k);
    out[k] = toMingo(doc[k]);
  }
  return out;
}

function assertExactlyConvertible(v: unknown, stage: string, field: string): void {
  const k = numericKind(v);
  if (k === "decimal" || (k === "long" && !Number.isSafeInteger(toDouble(v)))) {
    throw new EngineError(
      ErrorCodes.BadValue,
      `${stage} cannot read field '${field}' holding ${k === "decimal" ? "a Decimal128" : "a Long beyond 2^53"} value in the embedded engine (it would lose precision)`,
    );
  }
  if (Array.isArray(v)) v.forEach((e) => assertExactlyConvertible(e, stage, field));
  else if (isDocument(v)) for (const x of Object.values(v)) assertExactlyConvertible(x, stage, field);
}

const SCRIPT_OPERATORS = new Set(["$function", "$accumulator", "$where"]);

function rejectScripts(v: unknown): void {
  if (Array.isArray(v)) {
    v.forEach(rejectScripts);
    return;
  }
  if (!isDocument(v)) return;
  for (const [k, x] of Object.entries(v)) {
    if (SCRIPT_OPERATORS.has(k)) throw new EngineError(ErrorCodes.BadValue, `${k} is not supported by the embedded engine (server-side JavaScript is disabled)`);
    rejectScripts(x);
  }
}
