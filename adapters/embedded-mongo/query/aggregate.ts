import { Int32, Long } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { compareValues, equalityKey, stringComparator } from "./bson-order.js";
import type { StringComparator } from "./bson-order.js";
import { bsonTypeName } from "./bson-type.js";
import { getOwn, isDocument, walkPath, NO_MATCH } from "./document-path.js";
import { compileEv, makeEvalCtx } from "./expression.js";
import type { EvalScope, Ev } from "./expression.js";
import { runMingoStage } from "./aggregate-fallback.js";
import { compileAccumulator } from "./accumulators.js";
import type { Accumulator } from "./accumulators.js";
import { compileFilter } from "./filter.js";
import { numericKind, toDouble } from "./numeric.js";
import { compileProjection } from "./projection.js";
import { compileSort } from "./sort.js";
import type { Collation, Document } from "./types.js";

/** Where a pipeline gets other collections (`$lookup`, `$unionWith`, `$graphLookup`). */
export interface PipelineContext {
  /** Returns the documents of a collection (of the current database unless `db` is given). */
  resolveCollection(name: string, db?: string): Iterable<Document>;
  readonly collation?: Collation;
  /** The aggregate command's `let` variables. */
  readonly variables?: Readonly<Record<string, unknown>>;
  /** `$$NOW` for the whole run (default: when the run starts). */
  readonly now?: Date;
}

/** The namespace `$out` / `$merge` write to. */
export interface OutputTarget {
  readonly db?: string;
  readonly coll: string;
}

/**
 * A write the storage layer must perform: the query library never writes. For `$merge`, `on` is
 * the list of match fields (default `["_id"]`), and `whenMatched` is a mode or an update pipeline
 * (run it with `compileUpdate(pipeline, {variables: {...let, new: sourceDoc}})`).
 */
export type PipelineOutput =
  | { readonly stage: "$out"; readonly target: OutputTarget; readonly docs: Document[] }
  | {
      readonly stage: "$merge";
      readonly target: OutputTarget;
      readonly docs: Document[];
      readonly on: string[];
      readonly whenMatched: "replace" | "keepExisting" | "merge" | "fail" | Document[];
      readonly whenNotMatched: "insert" | "discard" | "fail";
      readonly let?: Document;
    };

/** The outcome of {@link runPipeline}: results for the cursor, plus any `$out`/`$merge` intent. */
export interface PipelineResult {
  readonly results: Document[];
  readonly output?: PipelineOutput;
}

/** Runtime inputs shared by every stage of one run (and by sub-pipelines, with extra variables). */
interface Runtime {
  readonly ctx: PipelineContext;
  readonly scope: EvalScope;
}

type Stage = (input: Iterable<Document>, rt: Runtime) => Iterable<Document>;

/** A compiled pipeline; `run` can be called many times (e.g. `$lookup` sub-pipelines). */
export interface CompiledPipeline {
  run(input: Iterable<Document>, ctx: PipelineContext): PipelineResult;
}

/**
 * Runs an aggregation pipeline over documents, BSON-faithfully: `$match` uses the query engine
 * (type brackets, BSON order), `$sort` the BSON sort order, `$group` groups by BSON equality, and
 * expressions keep Int32/Long/Double/Decimal128 types (see expression.ts). `$out` and `$merge` write
 * nothing: they come back as `output` for the storage layer. Stages without a native implementation
 * (`$setWindowFields`, `$densify`, `$fill`, `$bucketAuto`, `$graphLookup`) run in mingo on converted
 * documents.
 *
 * @example
 * const { results } = runPipeline(orders, [
 *   { $match: { status: "A" } },
 *   { $group: { _id: "$cust", total: { $sum: "$amount" } } },
 *   { $sort: { total: -1 } },
 * ], { resolveCollection: (name) => storage.scan(name) });
 */
export function runPipeline(docs: Iterable<Document>, pipeline: readonly Document[], ctx: PipelineContext): PipelineResult {
  return compilePipeline(pipeline, { collation: ctx.collation }).run(docs, ctx);
}

/**
 * Compiles a pipeline once for repeated runs.
 *
 * @example
 * const p = compilePipeline([{ $project: { a: 1 } }]);
 * p.run(docs, ctx).results;
 */
export function compilePipeline(pipeline: readonly Document[], options: { collation?: Collation } = {}): CompiledPipeline {
  if (!Array.isArray(pipeline)) throw new EngineError(ErrorCodes.TypeMismatch, "'pipeline' option must be specified as an array");
  const { stages, output } = compileStages(pipeline, options.collation, true);
  return {
    run(input, ctx) {
      const rt: Runtime = { ctx, scope: { variables: ctx.variables, now: ctx.now ?? new Date() } };
      let it: Iterable<Document> = input;
      for (const s of stages) it = s(it, rt);
      const docs = Array.from(it);
      if (output === undefined) return { results: docs };
      return { results: [], output: output(docs) };
    },
  };
}

/** Runs stages within a runtime (used for sub-pipelines, which share the parent's variables). */
function runStages(stages: Stage[], input: Iterable<Document>, rt: Runtime): Document[] {
  let it: Iterable<Document> = input;
  for (const s of stages) it = s(it, rt);
  return Array.from(it);
}

interface CompiledStages {
  stages: Stage[];
  output?: (docs: Document[]) => PipelineOutput;
}

function compileStages(pipeline: readonly Document[], collation: Collation | undefined, topLevel: boolean): CompiledStages {
  const stages: Stage[] = [];
  let output: ((docs: Document[]) => PipelineOutput) | undefined;
  pipeline.forEach((stage, i) => {
    if (!isDocument(stage) || Object.keys(stage).length !== 1) {
      throw new EngineError(40323, "A pipeline stage specification object must contain exactly one field.");
    }
    const name = Object.keys(stage)[0]!;
    const spec = stage[name];
    if (name === "$out" || name === "$merge") {
      if (!topLevel) throw new EngineError(ErrorCodes.BadValue, `${name} is not allowed within a $facet or $lookup pipeline`);
      if (i !== pipeline.length - 1) throw new EngineError(40601, `${name} can only be the final stage in the pipeline`);
      output = name === "$out" ? outIntent(spec) : mergeIntent(spec);
      return;
    }
    stages.push(compileStage(name, spec, collation, i));
  });
  return { stages, output };
}

const STORAGE_STAGES = new Set(["$changeStream", "$collStats", "$indexStats", "$currentOp", "$listSessions", "$listLocalSessions", "$planCacheStats", "$listSearchIndexes", "$listCatalog"]);
const UNSUPPORTED_STAGES = new Set(["$geoNear", "$search", "$searchMeta", "$vectorSearch", "$changeStreamSplitLargeEvent"]);
const MINGO_STAGES = new Set(["$setWindowFields", "$densify", "$fill", "$bucketAuto", "$graphLookup"]);

function compileStage(name: string, spec: unknown, collation: Collation | undefined, index: number): Stage {
  const cmp = stringComparator(collation);
  switch (name) {
    case "$match":
      return matchStage(spec, collation);
    case "$project":
      return projectStage(spec, collation);
    case "$addFields":
    case "$set":
      return addFieldsStage(name, spec, collation);
    case "$unset":
      return unsetStage(spec);
    case "$replaceRoot":
    case "$replaceWith":
      return replaceRootStage(name, spec, collation);
    case "$limit":
      return limitStage(spec);
    case "$skip":
      return skipStage(spec);
    case "$sort":
      return sortStage(spec, collation);
    case "$count":
      return countStage(spec);
    case "$group":
      return groupStage(spec, collation, cmp);
    case "$unwind":
      return unwindStage(spec);
    case "$lookup":
      return lookupStage(spec, collation);
    case "$unionWith":
      return unionWithStage(spec, collation);
    case "$facet":
      return facetStage(spec, collation);
    case "$bucket":
      return bucketStage(spec, collation, cmp);
    case "$sortByCount":
      return sortByCountStage(spec, collation, cmp);
    case "$sample":
      return sampleStage(spec);
    case "$redact":
      return redactStage(spec, collation);
    case "$documents":
      return documentsStage(spec, collation, index);
    default:
      if (MINGO_STAGES.has(name)) return mingoStage(name, spec, collation);
      if (STORAGE_STAGES.has(name)) {
        throw new EngineError(ErrorCodes.BadValue, `${name} must be handled by the storage layer before the query library runs the pipeline`);
      }
      if (UNSUPPORTED_STAGES.has(name)) throw new EngineError(ErrorCodes.BadValue, `${name} is not supported by the embedded engine`);
      throw new EngineError(40324, `Unrecognized pipeline stage name: '${name}'`);
  }
}

// ---------------------------------------------------------------------------------------------
// Streaming stages

function matchStage(spec: unknown, collation: Collation | undefined): Stage {
  if (!isDocument(spec)) throw new EngineError(15959, "the match filter must be an expression in an object");
  const m = compileFilter(spec, { collation });
  return function* (input, rt) {
    for (const d of input) if (m.matchesWith(d, rt.scope)) yield d;
  };
}

function projectStage(spec: unknown, collation: Collation | undefined): Stage {
  if (!isDocument(spec)) throw new EngineError(15969, "$project specification must be an object");
  const p = compileProjection(spec, { collation, mode: "aggregate" });
  return function* (input, rt) {
    for (const d of input) yield p.apply(d, rt.scope);
  };
}

function unsetStage(spec: unknown): Stage {
  const fields = typeof spec === "string" ? [spec] : spec;
  if (!Array.isArray(fields) || fields.length === 0 || fields.some((f) => typeof f !== "string")) {
    throw new EngineError(31002, "$unset specification must be a string or an array containing only string values");
  }
  const p = compileProjection(Object.fromEntries((fields as string[]).map((f) => [f, new Int32(0)])), { mode: "aggregate" });
  return function* (input) {
    for (const d of input) yield p.apply(d);
  };
}

/** `$addFields` tree: nested object literals merge into existing sub-documents. */
type AddNode = { readonly kind: "expr"; readonly ev: Ev } | { readonly kind: "node"; readonly children: Map<string, AddNode> };

function addFieldsStage(name: string, spec: unknown, collation: Collation | undefined): Stage {
  if (!isDocument(spec)) throw new EngineError(40272, `${name} specification stage must be an object, got ${bsonTypeName(spec)}`);
  const root = new Map<string, AddNode>();
  const add = (map: Map<string, AddNode>, parts: string[], value: unknown): void => {
    const [head, ...rest] = parts as [string, ...string[]];
    if (head === "" || head.startsWith("$")) throw new EngineError(16410, `FieldPath field names may not start with '$' or be empty: '${parts.join(".")}'`);
    if (rest.length === 0) {
      if (isDocument(value) && Object.keys(value).length > 0 && !Object.keys(value)[0]!.startsWith("$")) {
        let node = map.get(head);
        if (node === undefined || node.kind !== "node") {
          node = { kind: "node", children: new Map() };
          map.set(head, node);
        }
        for (const k of Object.keys(value)) add(node.children, k.split("."), value[k]);
        return;
      }
      map.set(head, { kind: "expr", ev: compileEv(value, { collation }) });
      return;
    }
    let node = map.get(head);
    if (node === undefined || node.kind !== "node") {
      node = { kind: "node", children: new Map() };
      map.set(head, node);
    }
    add(node.children, rest, value);
  };
  for (const k of Object.keys(spec)) add(root, k.split("."), spec[k]);
  return function* (input, rt) {
    for (const d of input) {
      const c = makeEvalCtx(d, rt.scope);
      yield applyAddFields(root, d, (ev) => ev(c)) as Document;
    }
  };
}

function applyAddFields(map: Map<string, AddNode>, target: unknown, evalFn: (ev: Ev) => unknown): unknown {
  if (Array.isArray(target)) return target.map((e) => applyAddFields(map, e, evalFn));
  const out: Document = isDocument(target) ? { ...target } : {};
  for (const [k, node] of map) {
    if (node.kind === "expr") {
      const v = evalFn(node.ev);
      if (v === undefined) delete out[k];
      else out[k] = v;
    } else out[k] = applyAddFields(node.children, getOwn(out, k), evalFn);
  }
  return out;
}

function replaceRootStage(name: string, spec: unknown, collation: Collation | undefined): Stage {
  let exprSpec = spec;
  if (name === "$replaceRoot") {
    if (!isDocument(spec) || !("newRoot" in spec)) throw new EngineError(40231, "no newRoot specified for the $replaceRoot stage");
    exprSpec = spec.newRoot;
  }
  const ev = compileEv(exprSpec, { collation });
  return function* (input, rt) {
    for (const d of input) {
      const v = ev(makeEvalCtx(d, rt.scope));
      if (!isDocument(v)) {
        throw new EngineError(40228, `'newRoot' expression must evaluate to an object, but resulting value was: ${v === undefined ? "MISSING" : String(v)}. Type of resulting value: '${bsonTypeName(v)}'.`);
      }
      yield v;
    }
  };
}

function positiveInt(name: string, spec: unknown, allowZero: boolean): number {
  const n = toDouble(spec);
  if (numericKind(spec) === undefined || !Number.isInteger(n)) {
    throw new EngineError(name === "$limit" ? 15957 : 15972, `the ${name === "$limit" ? "limit" : "skip"} must be specified as a number`);
  }
  if (allowZero ? n < 0 : n <= 0) {
    throw new EngineError(name === "$limit" ? 15958 : 15956, name === "$limit" ? "the limit must be positive" : "the number to skip cannot be negative");
  }
  return n;
}

function limitStage(spec: unknown): Stage {
  const n = positiveInt("$limit", spec, false);
  return function* (input) {
    if (n === 0) return;
    let i = 0;
    for (const d of input) {
      yield d;
      if (++i >= n) return;
    }
  };
}

function skipStage(spec: unknown): Stage {
  const n = positiveInt("$skip", spec, true);
  return function* (input) {
    let i = 0;
    for (const d of input) if (i++ >= n) yield d;
  };
}

/** Values a `$lookup`/`$unwind` path reaches, query-style (arrays traversed, missing as null). */
function pathValues(doc: Document, path: string): unknown[] {
  const out: unknown[] = [];
  walkPath(
    doc,
    path.split("."),
    (v) => {
      if (Array.isArray(v)) {
        if (v.length === 0) return NO_MATCH;
        out.push(...v);
      } else out.push(v === undefined ? null : v);
      return NO_MATCH;
    },
    false,
  );
  return out;
}

/** Writes `value` at a dotted path of a copy of `doc`, creating documents as needed. */
function setPath(doc: Document, parts: string[], value: unknown): Document {
  const out: Document = { ...doc };
  let cur: Document = out;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = getOwn(cur, parts[i]!);
    const copy: Document = isDocument(next) ? { ...next } : {};
    cur[parts[i]!] = copy;
    cur = copy;
  }
  const last = parts[parts.length - 1]!;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return out;
}

function unwindStage(spec: unknown): Stage {
  let path: unknown = spec;
  let indexField: string | undefined;
  let preserve = false;
  if (isDocument(spec)) {
    for (const k of Object.keys(spec)) {
      if (k !== "path" && k !== "includeArrayIndex" && k !== "preserveNullAndEmptyArrays") {
        throw new EngineError(28811, `unrecognized option to $unwind stage: ${k}`);
      }
    }
    path = spec.path;
    if (spec.includeArrayIndex !== undefined) {
      if (typeof spec.includeArrayIndex !== "string" || spec.includeArrayIndex === "" || spec.includeArrayIndex.startsWith("$")) {
        throw new EngineError(28822, "includeArrayIndex option to $unwind stage must be a non-empty string not starting with '$'");
      }
      indexField = spec.includeArrayIndex;
    }
    if (spec.preserveNullAndEmptyArrays !== undefined) {
      if (typeof spec.preserveNullAndEmptyArrays !== "boolean") throw new EngineError(28809, "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage");
      preserve = spec.preserveNullAndEmptyArrays;
    }
  }
  if (typeof path !== "string") throw new EngineError(15981, `expected either a string or an object as specification for $unwind stage, got ${bsonTypeName(path)}`);
  if (!path.startsWith("$")) throw new EngineError(28818, `path option to $unwind stage should be prefixed with a '$': ${path}`);
  const parts = path.slice(1).split(".");
  const indexParts = indexField?.split(".");
  return function* (input) {
    for (const d of input) {
      // The unwound path is read without array traversal: an array in the middle means "missing".
      let v: unknown = d;
      for (const p of parts) v = isDocument(v) ? getOwn(v, p) : undefined;
      if (Array.isArray(v)) {
        if (v.length === 0) {
          if (preserve) {
            const out = setPath(d, parts, undefined);
            yield indexParts ? setPath(out, indexParts, null) : out;
          }
          continue;
        }
        for (let i = 0; i < v.length; i++) {
          const out = setPath(d, parts, v[i]);
          yield indexParts ? setPath(out, indexParts, Long.fromNumber(i)) : out;
        }
      } else if (v === null || v === undefined) {
        if (preserve) yield indexParts ? setPath(d, indexParts, null) : d;
      } else {
        yield indexParts ? setPath(d, indexParts, null) : d;
      }
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Blocking stages

function sortStage(spec: unknown, collation: Collation | undefined): Stage {
  if (!isDocument(spec)) throw new EngineError(15973, "the $sort key specification must be an object");
  if (Object.keys(spec).length === 0) throw new EngineError(15976, "$sort stage must have at least one sort key");
  const sort = compileSort(spec, collation);
  return (input) => sort.sort(Array.from(input));
}

function countStage(spec: unknown): Stage {
  if (typeof spec !== "string" || spec === "") throw new EngineError(40156, "the count field must be a non-empty string");
  if (spec.startsWith("$")) throw new EngineError(40158, "the count field cannot be a $-prefixed path");
  if (spec.includes(".")) throw new EngineError(40160, "the count field cannot contain '.'");
  return (input) => {
    let n = 0;
    for (const _ of input) n++;
    return n === 0 ? [] : [{ [spec]: new Int32(n) }];
  };
}

interface GroupSpec {
  readonly id: Ev;
  readonly fields: { readonly name: string; readonly acc: () => Accumulator }[];
}

function parseGroup(spec: unknown, collation: Collation | undefined, cmp: StringComparator | undefined): GroupSpec {
  if (!isDocument(spec)) throw new EngineError(15947, "a group's fields must be specified in an object");
  if (!("_id" in spec)) throw new EngineError(15955, "a group specification must include an _id");
  const id = compileEv(spec._id, { collation });
  const fields = Object.keys(spec)
    .filter((k) => k !== "_id")
    .map((name) => {
      if (name.includes(".")) throw new EngineError(40235, `The field name '${name}' cannot contain '.'`);
      if (name.startsWith("$")) throw new EngineError(16410, `FieldPath field names may not start with '$'.`);
      return { name, acc: compileAccumulator(name, spec[name], collation, cmp) };
    });
  return { id, fields };
}

/** Groups documents by BSON equality of the key (collation-aware for strings). */
function groupDocs(input: Iterable<Document>, spec: GroupSpec, rt: Runtime, cmp: StringComparator | undefined): Document[] {
  const groups = new Map<string, { key: unknown; accs: Accumulator[] }>();
  const order: { key: unknown; accs: Accumulator[] }[] = [];
  for (const d of input) {
    const c = makeEvalCtx(d, rt.scope);
    let key = spec.id(c);
    if (key === undefined) key = null;
    const k = equalityKey(key);
    let g = groups.get(k);
    if (g === undefined && cmp !== undefined) {
      // With a collation, strings equal under it share a group even though their keys differ.
      g = order.find((x) => compareValues(x.key, key, cmp) === 0);
    }
    if (g === undefined) {
      g = { key, accs: spec.fields.map((f) => f.acc()) };
      groups.set(k, g);
      order.push(g);
    }
    for (const a of g.accs) a.add(c);
  }
  return order.map((g) => {
    const out: Document = { _id: g.key };
    spec.fields.forEach((f, i) => {
      const v = g.accs[i]!.result();
      if (v !== undefined) out[f.name] = v;
    });
    return out;
  });
}

function groupStage(spec: unknown, collation: Collation | undefined, cmp: StringComparator | undefined): Stage {
  const g = parseGroup(spec, collation, cmp);
  return (input, rt) => groupDocs(input, g, rt, cmp);
}

function sortByCountStage(spec: unknown, collation: Collation | undefined, cmp: StringComparator | undefined): Stage {
  const valid = (typeof spec === "string" && spec.startsWith("$")) || (isDocument(spec) && Object.keys(spec).length === 1 && Object.keys(spec)[0]!.startsWith("$"));
  if (!valid) throw new EngineError(40148, "the sortByCount field must be defined as a $-prefixed path or an expression");
  const g = parseGroup({ _id: spec, count: { $sum: new Int32(1) } }, collation, cmp);
  const sort = compileSort({ count: -1 }, collation);
  return (input, rt) => sort.sort(groupDocs(input, g, rt, cmp));
}

function bucketStage(spec: unknown, collation: Collation | undefined, cmp: StringComparator | undefined): Stage {
  if (!isDocument(spec)) throw new EngineError(40201, "Argument to $bucket stage must be an object");
  for (const k of Object.keys(spec)) {
    if (!["groupBy", "boundaries", "default", "output"].includes(k)) throw new EngineError(40197, `Unrecognized option to $bucket: ${k}.`);
  }
  if (!("groupBy" in spec) || !("boundaries" in spec)) throw new EngineError(40198, "$bucket requires 'groupBy' and 'boundaries' to be specified.");
  const bounds = spec.boundaries;
  if (!Array.isArray(bounds) || bounds.length < 2) throw new EngineError(40192, "The $bucket 'boundaries' field must be an array of at least 2 values");
  for (let i = 1; i < bounds.length; i++) {
    if (bsonTypeName(bounds[i]) !== bsonTypeName(bounds[i - 1]) && !(numericKind(bounds[i]) !== undefined && numericKind(bounds[i - 1]) !== undefined)) {
      throw new EngineError(40193, "All values in the 'boundaries' option to $bucket must have the same type.");
    }
    if (compareValues(bounds[i - 1], bounds[i], cmp) >= 0) throw new EngineError(40194, "The 'boundaries' option to $bucket must be sorted in ascending order.");
  }
  const hasDefault = "default" in spec;
  const def = spec.default;
  if (hasDefault && compareValues(def, bounds[0], cmp) >= 0 && compareValues(def, bounds[bounds.length - 1], cmp) < 0) {
    throw new EngineError(40199, "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.");
  }
  const groupBy = compileEv(spec.groupBy, { collation });
  const output = isDocument(spec.output) ? spec.output : { count: { $sum: new Int32(1) } };
  const g = parseGroup({ _id: null, ...output }, collation, cmp);
  return (input, rt) => {
    const buckets = new Map<number, Document[]>();
    for (const d of input) {
      const v = groupBy(makeEvalCtx(d, rt.scope));
      let idx = -1;
      for (let i = 0; i + 1 < bounds.length; i++) {
        if (compareValues(v, bounds[i], cmp) >= 0 && compareValues(v, bounds[i + 1], cmp) < 0 && bsonTypeName(v) !== "missing") {
          idx = i;
          break;
        }
      }
      if (idx === -1) {
        if (!hasDefault) throw new EngineError(40066, "$switch could not find a matching branch for an input, and no default was specified.");
        idx = bounds.length; // the default bucket sorts last
      }
      const list = buckets.get(idx) ?? [];
      list.push(d);
      buckets.set(idx, list);
    }
    return [...buckets.keys()]
      .sort((a, b) => a - b)
      .map((idx) => {
        const [grouped] = groupDocs(buckets.get(idx)!, g, rt, cmp);
        return { ...grouped!, _id: idx === bounds.length ? def : bounds[idx] };
      });
  };
}

function sampleStage(spec: unknown): Stage {
  if (!isDocument(spec) || numericKind(spec.size) === undefined) throw new EngineError(28745, "$sample stage must specify a size");
  const size = toDouble(spec.size);
  if (size < 0) throw new EngineError(28747, "size argument to $sample must not be negative");
  return (input) => {
    const all = Array.from(input);
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    return all.slice(0, size);
  };
}

function redactStage(spec: unknown, collation: Collation | undefined): Stage {
  const ev = compileEv(spec, { collation });
  return function* (input, rt) {
    for (const d of input) {
      const out = redact(d, d, ev, rt);
      if (out !== undefined) yield out;
    }
  };
}

function redact(doc: Document, root: Document, ev: Ev, rt: Runtime): Document | undefined {
  const base = makeEvalCtx(root, rt.scope);
  const decision = ev({ ...base, current: doc });
  if (decision === "$$PRUNE") return undefined;
  if (decision === "$$KEEP") return doc;
  if (decision !== "$$DESCEND") {
    throw new EngineError(17053, `$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned ${bsonTypeName(decision)}`);
  }
  const out: Document = {};
  for (const k of Object.keys(doc)) {
    const v = doc[k];
    if (isDocument(v)) {
      const r = redact(v, root, ev, rt);
      if (r !== undefined) out[k] = r;
    } else if (Array.isArray(v)) {
      out[k] = redactArray(v, root, ev, rt);
    } else out[k] = v;
  }
  return out;
}

function redactArray(arr: unknown[], root: Document, ev: Ev, rt: Runtime): unknown[] {
  const out: unknown[] = [];
  for (const e of arr) {
    if (isDocument(e)) {
      const r = redact(e, root, ev, rt);
      if (r !== undefined) out.push(r);
    } else if (Array.isArray(e)) out.push(redactArray(e, root, ev, rt));
    else out.push(e);
  }
  return out;
}

function documentsStage(spec: unknown, collation: Collation | undefined, index: number): Stage {
  if (index !== 0) throw new EngineError(ErrorCodes.BadValue, "$documents is only valid as the first stage in a pipeline");
  const ev = compileEv(spec, { collation });
  return (_input, rt) => {
    const v = ev(makeEvalCtx({}, rt.scope));
    if (!Array.isArray(v) || !v.every(isDocument)) throw new EngineError(5858203, "error during $documents stage :: caused by :: $documents must evaluate to an array of objects");
    return v as Document[];
  };
}

// ---------------------------------------------------------------------------------------------
// Sub-pipelines: $lookup, $unionWith, $facet

function parseNamespace(v: unknown, what: string): OutputTarget {
  if (typeof v === "string") return { coll: v };
  if (isDocument(v) && typeof v.coll === "string") return { coll: v.coll, ...(typeof v.db === "string" ? { db: v.db } : {}) };
  throw new EngineError(ErrorCodes.FailedToParse, `${what} must be a string or an object with 'db' and 'coll'`);
}

function subPipeline(v: unknown, collation: Collation | undefined, what: string): Stage[] {
  if (!Array.isArray(v)) throw new EngineError(ErrorCodes.FailedToParse, `${what} 'pipeline' must be an array`);
  return compileStages(v as Document[], collation, false).stages;
}

function lookupStage(spec: unknown, collation: Collation | undefined): Stage {
  if (!isDocument(spec)) throw new EngineError(ErrorCodes.FailedToParse, "the $lookup specification must be an Object");
  for (const k of Object.keys(spec)) {
    if (!["from", "localField", "foreignField", "as", "let", "pipeline"].includes(k)) throw new EngineError(ErrorCodes.FailedToParse, `unknown argument to $lookup: ${k}`);
  }
  if (typeof spec.as !== "string") throw new EngineError(ErrorCodes.FailedToParse, "must specify 'as' field for a $lookup");
  const asParts = spec.as.split(".");
  const from = spec.from === undefined ? undefined : parseNamespace(spec.from, "$lookup 'from'");
  const hasLocal = "localField" in spec || "foreignField" in spec;
  if (hasLocal && (typeof spec.localField !== "string" || typeof spec.foreignField !== "string")) {
    throw new EngineError(ErrorCodes.FailedToParse, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified");
  }
  const localField = spec.localField as string | undefined;
  const foreignField = spec.foreignField as string | undefined;
  const pipeline = "pipeline" in spec ? subPipeline(spec.pipeline, collation, "$lookup") : undefined;
  if (pipeline === undefined && !hasLocal) throw new EngineError(ErrorCodes.FailedToParse, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified");
  if (from === undefined && (pipeline === undefined || !isFirstDocuments(spec.pipeline))) {
    throw new EngineError(ErrorCodes.FailedToParse, "must specify 'from' field for a $lookup");
  }
  const letVars = isDocument(spec.let) ? Object.entries(spec.let).map(([k, v]) => [k, compileEv(v, { collation })] as const) : [];
  const cmp = stringComparator(collation);

  return (input, rt) => {
    const foreign = from === undefined ? [] : Array.from(rt.ctx.resolveCollection(from.coll, from.db));
    // Equality lookups index the foreign side once per run by BSON equality of foreignField values.
    let index: Map<string, number[]> | undefined;
    if (foreignField !== undefined && cmp === undefined) {
      index = new Map();
      foreign.forEach((fd, i) => {
        const keys = new Set(pathValues(fd, foreignField).map(equalityKey));
        if (keys.size === 0) keys.add(equalityKey(null));
        for (const k of keys) {
          const list = index!.get(k) ?? [];
          list.push(i);
          index!.set(k, list);
        }
      });
    }
    const out: Document[] = [];
    for (const d of input) {
      let candidates = foreign;
      if (foreignField !== undefined && localField !== undefined) {
        const locals = pathValues(d, localField);
        if (locals.length === 0) locals.push(null);
        if (index !== undefined) {
          const hit = new Set<number>();
          for (const l of locals) for (const i of index.get(equalityKey(l)) ?? []) hit.add(i);
          candidates = [...hit].sort((a, b) => a - b).map((i) => foreign[i]!);
        } else {
          const m = compileFilter({ [foreignField]: { $in: locals } }, { collation });
          candidates = foreign.filter((fd) => m.matches(fd));
        }
      }
      let joined: Document[] = candidates;
      if (pipeline !== undefined) {
        const c = makeEvalCtx(d, rt.scope);
        const vars: Record<string, unknown> = { ...(rt.scope.variables ?? {}) };
        for (const [k, ev] of letVars) vars[k] = ev(c);
        joined = runStages(pipeline, candidates, { ctx: rt.ctx, scope: { variables: vars, now: rt.scope.now } });
      }
      out.push(setPath(d, asParts, joined));
    }
    return out;
  };
}

function isFirstDocuments(pipeline: unknown): boolean {
  return Array.isArray(pipeline) && isDocument(pipeline[0]) && "$documents" in pipeline[0];
}

function unionWithStage(spec: unknown, collation: Collation | undefined): Stage {
  let ns: OutputTarget | undefined;
  let pipeline: Stage[] = [];
  if (typeof spec === "string") ns = { coll: spec };
  else if (isDocument(spec)) {
    if (spec.coll !== undefined) ns = parseNamespace(spec.coll, "$unionWith 'coll'");
    if (spec.pipeline !== undefined) pipeline = subPipeline(spec.pipeline, collation, "$unionWith");
    if (ns === undefined && !isFirstDocuments(spec.pipeline)) throw new EngineError(ErrorCodes.FailedToParse, "$unionWith requires 'coll' unless its pipeline starts with $documents");
  } else throw new EngineError(ErrorCodes.FailedToParse, "the $unionWith stage specification must be an object or string");
  return function* (input, rt) {
    yield* input;
    const other = ns === undefined ? [] : rt.ctx.resolveCollection(ns.coll, ns.db);
    yield* runStages(pipeline, other, rt);
  };
}

function facetStage(spec: unknown, collation: Collation | undefined): Stage {
  if (!isDocument(spec) || Object.keys(spec).length === 0) throw new EngineError(40169, "the $facet specification must be a non-empty object");
  const facets = Object.keys(spec).map((name) => {
    const p = spec[name];
    if (!Array.isArray(p)) throw new EngineError(40170, `arguments to $facet must be arrays, ${name} is type ${bsonTypeName(p)}`);
    for (const st of p) {
      const stageName = isDocument(st) ? Object.keys(st)[0] : undefined;
      if (stageName === "$facet" || stageName === "$out" || stageName === "$merge" || stageName === "$documents") {
        throw new EngineError(40600, `${stageName} is not allowed to be used within a $facet stage`);
      }
    }
    return [name, compileStages(p as Document[], collation, false).stages] as const;
  });
  return (input, rt) => {
    const docs = Array.from(input);
    const out: Document = {};
    for (const [name, stages] of facets) out[name] = runStages(stages, docs, rt);
    return [out];
  };
}

// ---------------------------------------------------------------------------------------------
// $out / $merge intents

function outIntent(spec: unknown): (docs: Document[]) => PipelineOutput {
  const target = parseNamespace(spec, "$out");
  return (docs) => ({ stage: "$out", target, docs });
}

function mergeIntent(spec: unknown): (docs: Document[]) => PipelineOutput {
  const s = typeof spec === "string" ? { into: spec } : spec;
  if (!isDocument(s) || s.into === undefined) throw new EngineError(ErrorCodes.FailedToParse, "$merge requires an 'into' field");
  for (const k of Object.keys(s)) {
    if (!["into", "on", "let", "whenMatched", "whenNotMatched"].includes(k)) throw new EngineError(40415, `BSON field '$merge.${k}' is an unknown field.`);
  }
  const target = parseNamespace(s.into, "$merge 'into'");
  const on = s.on === undefined ? ["_id"] : typeof s.on === "string" ? [s.on] : s.on;
  if (!Array.isArray(on) || on.length === 0 || on.some((f) => typeof f !== "string")) {
    throw new EngineError(51186, "$merge 'on' field must be either a string or an array of strings");
  }
  const wm = s.whenMatched ?? "merge";
  if (!(Array.isArray(wm) || wm === "replace" || wm === "keepExisting" || wm === "merge" || wm === "fail")) {
    throw new EngineError(ErrorCodes.BadValue, `Enumeration value '${String(wm)}' for field '$merge.whenMatched' is not a valid value.`);
  }
  const wnm = s.whenNotMatched ?? "insert";
  if (wnm !== "insert" && wnm !== "discard" && wnm !== "fail") {
    throw new EngineError(ErrorCodes.BadValue, `Enumeration value '${String(wnm)}' for field '$merge.whenNotMatched' is not a valid value.`);
  }
  const letSpec = isDocument(s.let) ? s.let : undefined;
  return (docs) => ({
    stage: "$merge",
    target,
    docs,
    on: on as string[],
    whenMatched: wm as "replace" | "keepExisting" | "merge" | "fail" | Document[],
    whenNotMatched: wnm,
    ...(letSpec !== undefined ? { let: letSpec } : {}),
  });
}

// ---------------------------------------------------------------------------------------------

function mingoStage(name: string, spec: unknown, collation: Collation | undefined): Stage {
  return (input, rt) => runMingoStage(name, spec, Array.from(input), { collation, resolve: (coll) => Array.from(rt.ctx.resolveCollection(coll)), variables: rt.scope.variables, now: rt.scope.now });
}
