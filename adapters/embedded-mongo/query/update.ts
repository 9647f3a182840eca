import { Int32, Long, Timestamp } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { bsonIdentical, compareValues, stringComparator } from "./bson-order.js";
import type { StringComparator } from "./bson-order.js";
import { formatBson } from "./bson-format.js";
import { bsonTypeName } from "./bson-type.js";
import { arrayIndexOf, isDocument } from "./document-path.js";
import { compileFilter, compileValuePredicate, isQueryOperatorObject } from "./filter.js";
import { add, multiply, numericKind, toDouble } from "./numeric.js";
import { compileSort } from "./sort.js";
import { describeUpdate, isEmptyDescription } from "./update-description.js";
import type { UpdateDescription } from "./update-description.js";
import { arrayFilterIdentifier, DocWriter, expandPath, hasPositional } from "./update-paths.js";
import type { ArrayFilterTest, ExpandContext } from "./update-paths.js";
import { compileUpdatePipeline } from "./update-pipeline.js";
import type { Collation, Document } from "./types.js";

export type { UpdateDescription } from "./update-description.js";

/** Options for {@link compileUpdate}. */
export interface UpdateOptions {
  readonly arrayFilters?: readonly Document[];
  readonly collation?: Collation;
  /** Variables for pipeline-style updates (`let`). */
  readonly variables?: Readonly<Record<string, unknown>>;
}

/** Per-document inputs of {@link CompiledUpdate.apply}. */
export interface ApplyOptions {
  /** True when the update runs against an upsert's seed document ($setOnInsert applies). */
  readonly isInsert: boolean;
  /** The array position the query matched (`matchDetails().positional`), for `$`. */
  readonly positional?: number;
  /** Clock for `$currentDate` and `$$NOW`; defaults to the current time. */
  readonly now?: Date;
}

/** The outcome of applying an update to one document. */
export interface UpdateResult {
  /** The new document (the input object itself when nothing changed). */
  readonly doc: Document;
  /** False when the update was a no-op (every value already identical, type included). */
  readonly modified: boolean;
  readonly updateDescription: UpdateDescription;
}

/**
 * A compiled update. `kind` says which of MongoDB's three update forms it is; replacements surface
 * as "replace" events in change streams.
 *
 * @example
 * const u = compileUpdate({ $inc: { n: 1 } });
 * u.apply({ _id: 1, n: new Int32(1) }, { isInsert: false }).doc; // {_id: 1, n: Int32(2)}
 */
export interface CompiledUpdate {
  readonly kind: "operators" | "replacement" | "pipeline";
  /** True when the update uses the positional `$` operator (the caller must pass `positional`). */
  readonly usesPositional: boolean;
  apply(doc: Document, options: ApplyOptions): UpdateResult;
}

/** Applies one operator to one concrete path. */
type OperatorFn = (w: DocWriter, parts: string[], ctx: RunCtx) => void;

interface RunCtx {
  readonly now: Date;
  readonly cmp: StringComparator | undefined;
  readonly doc: Document;
}

interface Operation {
  readonly op: string;
  readonly path: string;
  readonly parts: string[];
  readonly fn: OperatorFn;
  /** Whether the path has `$`, `$[]` or `$[id]` components (decided once at compile time). */
  readonly positional: boolean;
}

const OPERATORS = new Set([
  "$set",
  "$unset",
  "$inc",
  "$mul",
  "$min",
  "$max",
  "$rename",
  "$setOnInsert",
  "$currentDate",
  "$push",
  "$addToSet",
  "$pop",
  "$pull",
  "$pullAll",
  "$bit",
]);

/**
 * Compiles an update once: an operator document (`{$set: ..., $inc: ...}`), a replacement document,
 * or an aggregation pipeline (array of `$set/$addFields/$unset/$project/$replaceRoot/$replaceWith`
 * stages). Validation errors carry the server's codes: 9 for unknown modifiers and bad array
 * filters, 40 for conflicting paths, 52 for `$`-prefixed field names, 56 for empty path components,
 * 66 for `_id` changes (raised by `apply`), 28 when a path cannot be created.
 *
 * @example
 * const u = compileUpdate({ $set: { "grades.$[g]": 100 } }, { arrayFilters: [{ g: { $gte: 90 } }] });
 * u.apply({ _id: 1, grades: [95, 80] }, { isInsert: false }).doc; // grades: [100, 80]
 */
export function compileUpdate(update: Document | readonly Document[], options: UpdateOptions = {}): CompiledUpdate {
  if (Array.isArray(update)) {
    if (options.arrayFilters !== undefined && options.arrayFilters.length > 0) {
      throw new EngineError(ErrorCodes.FailedToParse, "arrayFilters may not be specified for pipeline-style updates");
    }
    return compilePipelineUpdate(update as Document[], options);
  }
  if (!isDocument(update)) throw new EngineError(ErrorCodes.FailedToParse, "Update argument must be either an object or an array");
  const keys = Object.keys(update);
  if (keys.length === 0 || !keys[0]!.startsWith("$")) {
    if (options.arrayFilters !== undefined && options.arrayFilters.length > 0) {
      throw new EngineError(ErrorCodes.FailedToParse, "arrayFilters may not be specified for replacement updates");
    }
    return compileReplacement(update);
  }
  return compileOperatorUpdate(update, options);
}

// ---------------------------------------------------------------------------------------------
// Replacement

function checkStorableFieldNames(doc: Document, where: string): void {
  for (const k of Object.keys(doc)) {
    if (k.startsWith("$")) {
      throw new EngineError(
        ErrorCodes.DollarPrefixedFieldName,
        `The dollar ($) prefixed field '${k}' in '${k}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
      );
    }
  }
  void where;
}

function compileReplacement(replacement: Document): CompiledUpdate {
  checkStorableFieldNames(replacement, "replacement");
  return {
    kind: "replacement",
    usesPositional: false,
    apply(doc, opts) {
      const next: Document = {};
      const hasOldId = Object.prototype.hasOwnProperty.call(doc, "_id");
      if (Object.prototype.hasOwnProperty.call(replacement, "_id")) {
        if (hasOldId && !opts.isInsert && !bsonIdentical(doc._id, replacement._id)) throw immutableId(replacement._id);
        next._id = hasOldId && !opts.isInsert ? doc._id : replacement._id;
      } else if (hasOldId) next._id = doc._id;
      for (const k of Object.keys(replacement)) if (k !== "_id") next[k] = cloneValue(replacement[k]);
      validateId(next);
      return finish(doc, next, true);
    },
  };
}

function immutableId(value: unknown): EngineError {
  return new EngineError(ErrorCodes.ImmutableField, `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatBson(value)}`);
}

function validateId(doc: Document): void {
  if (!Object.prototype.hasOwnProperty.call(doc, "_id")) return;
  const id = doc._id;
  const t = bsonTypeName(id);
  if (t === "array" || t === "regex" || t === "undefined") {
    throw new EngineError(ErrorCodes.InvalidIdField, `The '_id' value cannot be of type ${t}`);
  }
}

function finish(before: Document, after: Document, checkOrder = false): UpdateResult {
  const updateDescription = describeUpdate(before, after);
  // Only a replacement can reorder existing top-level fields without changing any value.
  const modified = !isEmptyDescription(updateDescription) || (checkOrder && !sameKeyOrder(before, after));
  return { doc: modified ? after : before, modified, updateDescription };
}

/**
 * Result of an operator update: operators only write when a value really changes, so `modified` is
 * known without diffing; the (comparatively costly) description is computed on first access. A class
 * (not an object literal with a getter) keeps V8 on its fast path.
 */
class LazyUpdateResult implements UpdateResult {
  #description: UpdateDescription | undefined;
  readonly doc: Document;
  constructor(
    private readonly before: Document,
    private readonly after: Document,
    readonly modified: boolean,
  ) {
    this.doc = modified ? after : before;
  }
  get updateDescription(): UpdateDescription {
    this.#description ??= this.modified ? describeUpdate(this.before, this.after) : { updatedFields: {}, removedFields: [], truncatedArrays: [] };
    return this.#description;
  }
}

function sameKeyOrder(a: Document, b: Document): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

/** Update arguments are shared by every document the update touches: give each its own copy. */
function cloneValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(cloneValue);
  if (isDocument(v)) {
    const o: Document = {};
    for (const k of Object.keys(v)) o[k] = cloneValue(v[k]);
    return o;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Pipeline

function compilePipelineUpdate(pipeline: readonly Document[], options: UpdateOptions): CompiledUpdate {
  const run = compileUpdatePipeline(pipeline, { collation: options.collation, variables: options.variables });
  return {
    kind: "pipeline",
    usesPositional: false,
    apply(doc, opts) {
      const out = run(doc, opts.now ?? new Date());
      const hadId = Object.prototype.hasOwnProperty.call(doc, "_id");
      if (hadId) {
        if (!Object.prototype.hasOwnProperty.call(out, "_id")) {
          // The server keeps the immutable _id even when a stage drops it.
          const withId: Document = { _id: doc._id, ...out };
          return finish(doc, withId, true);
        }
        if (!opts.isInsert && !bsonIdentical(out._id, doc._id)) throw immutableId(out._id);
      }
      validateId(out);
      return finish(doc, out, true);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Operator updates

function splitUpdatePath(path: string, op: string): string[] {
  if (path === "") throw new EngineError(ErrorCodes.EmptyFieldName, `An empty update path is not valid.`);
  const parts = path.split(".");
  for (const p of parts) {
    if (p === "") throw new EngineError(ErrorCodes.EmptyFieldName, `The update path '${path}' contains an empty field name, which is not allowed.`);
    if (p.startsWith("$") && p !== "$" && p !== "$[]" && arrayFilterIdentifier(p) === undefined) {
      throw new EngineError(ErrorCodes.DollarPrefixedFieldName, `The dollar ($) prefixed field '${p}' in '${path}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`);
    }
  }
  if (parts.filter((p) => p === "$").length > 1) {
    throw new EngineError(ErrorCodes.BadValue, `Too many positional (i.e. '$') elements found in path '${path}'`);
  }
  if (parts[0] === "$" || parts[0]!.startsWith("$[")) {
    throw new EngineError(ErrorCodes.BadValue, `Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '${path}'`);
  }
  void op;
  return parts;
}

function comparePathsForOrder(a: string[], b: string[]): number {
  // Fields are processed in lexicographic order, numeric names numerically (MongoDB 5.0+), which
  // fixes the order in which new fields are appended.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    const xi = arrayIndexOf(x);
    const yi = arrayIndexOf(y);
    if (xi >= 0 && yi >= 0) return xi - yi;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

function compileArrayFilters(filters: readonly Document[] | undefined, collation: Collation | undefined): Map<string, ArrayFilterTest> {
  const out = new Map<string, ArrayFilterTest>();
  for (const f of filters ?? []) {
    if (!isDocument(f)) throw new EngineError(ErrorCodes.TypeMismatch, "Each array filter must be an object");
    const ids = new Set<string>();
    for (const k of Object.keys(f)) {
      if (k.startsWith("$")) {
        if (k === "$and" || k === "$or" || k === "$nor") {
          collectIds(f[k], ids);
          continue;
        }
        throw new EngineError(ErrorCodes.FailedToParse, `Error parsing array filter :: caused by :: unknown top level operator: ${k}`);
      }
      ids.add(k.split(".")[0]!);
    }
    if (ids.size !== 1) {
      throw new EngineError(ErrorCodes.FailedToParse, `Error parsing array filter :: caused by :: Expected a single top-level field name, found ${[...ids].map((i) => `'${i}'`).join(" and ") || "none"}`);
    }
    const id = [...ids][0]!;
    if (!/^[a-z][a-zA-Z0-9]*$/.test(id)) {
      throw new EngineError(ErrorCodes.BadValue, `Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${id}'`);
    }
    if (out.has(id)) throw new EngineError(ErrorCodes.FailedToParse, `Found multiple array filters with the same top-level field name ${id}`);
    const matcher = compileFilter(f, { collation });
    // The filter's paths start with the identifier, which stands for the element itself.
    out.set(id, (element) => matcher.matches({ [id]: element }));
  }
  return out;
}

function collectIds(v: unknown, ids: Set<string>): void {
  if (!Array.isArray(v)) return;
  for (const sub of v) {
    if (!isDocument(sub)) continue;
    for (const k of Object.keys(sub)) {
      if (k.startsWith("$")) collectIds(sub[k], ids);
      else ids.add(k.split(".")[0]!);
    }
  }
}

function compileOperatorUpdate(update: Document, options: UpdateOptions): CompiledUpdate {
  const ops: Operation[] = [];
  const allPaths: { path: string; parts: string[] }[] = [];
  const cmp = stringComparator(options.collation);
  const onInsertOnly: Operation[] = [];
  for (const op of Object.keys(update)) {
    if (!OPERATORS.has(op)) {
      throw new EngineError(ErrorCodes.FailedToParse, `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`);
    }
    const spec = update[op];
    if (!isDocument(spec)) {
      throw new EngineError(
        ErrorCodes.FailedToParse,
        `Modifiers operate on fields but we found type ${bsonTypeName(spec)} instead. For example: {$mod: {<field>: ...}} not {${op}: ${formatBson(spec)}}`,
      );
    }
    for (const path of Object.keys(spec)) {
      const arg = spec[path];
      const parts = splitUpdatePath(path, op);
      if (op === "$rename") {
        const target = renameTarget(path, arg, parts);
        allPaths.push({ path, parts }, { path: target.join("."), parts: target });
        ops.push({ op, path, parts, fn: renameOp(parts, target), positional: false });
        continue;
      }
      allPaths.push({ path, parts });
      const operation: Operation = { op, path, parts, fn: compileOperator(op, path, arg, options, cmp), positional: hasPositional(parts) };
      if (op === "$setOnInsert") onInsertOnly.push(operation);
      else ops.push(operation);
    }
  }
  checkConflicts(allPaths);
  const arrayFilters = compileArrayFilters(options.arrayFilters, options.collation);
  const used = new Set<string>();
  for (const { path, parts } of allPaths) {
    for (const p of parts) {
      const id = arrayFilterIdentifier(p);
      if (id === undefined) continue;
      if (!arrayFilters.has(id)) throw new EngineError(ErrorCodes.BadValue, `No array filter found for identifier '${id}' in path '${path}'`);
      used.add(id);
    }
  }
  for (const id of arrayFilters.keys()) {
    if (!used.has(id)) throw new EngineError(ErrorCodes.FailedToParse, `The array filter for identifier '${id}' was not used in the update ${formatBson(update)}`);
  }
  const byPath = (x: Operation, y: Operation) => comparePathsForOrder(x.parts, y.parts);
  ops.sort(byPath);
  const withInsert = [...ops, ...onInsertOnly].sort(byPath);
  const usesPositional = allPaths.some(({ parts }) => parts.includes("$"));

  return {
    kind: "operators",
    usesPositional,
    apply(doc, opts) {
      const w = new DocWriter(doc);
      const ctx: RunCtx = { now: opts.now ?? new Date(), cmp, doc };
      let expand: ExpandContext | undefined;
      for (const op of opts.isInsert ? withInsert : ops) {
        if (op.positional) {
          expand ??= { positional: opts.positional, arrayFilters };
          for (const concrete of expandPath(w.root, op.parts, expand)) op.fn(w, concrete, ctx);
        } else op.fn(w, op.parts, ctx);
      }
      let next = w.root;
      if (Object.prototype.hasOwnProperty.call(doc, "_id") && !bsonIdentical(doc._id, next._id)) {
        throw new EngineError(ErrorCodes.ImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'");
      }
      if (opts.isInsert && Object.prototype.hasOwnProperty.call(next, "_id") && Object.keys(next)[0] !== "_id") {
        next = { _id: next._id, ...next }; // inserted documents keep _id first
      }
      validateId(next);
      return new LazyUpdateResult(doc, next, w.dirty);
    },
  };
}

function checkConflicts(paths: { path: string; parts: string[] }[]): void {
  for (let i = 0; i < paths.length; i++) {
    for (let j = i + 1; j < paths.length; j++) {
      const a = paths[i]!.parts;
      const b = paths[j]!.parts;
      const n = Math.min(a.length, b.length);
      let k = 0;
      while (k < n && a[k] === b[k]) k++;
      if (k === n) {
        const shorter = a.length <= b.length ? paths[i]! : paths[j]!;
        const longer = shorter === paths[i] ? paths[j]! : paths[i]!;
        throw new EngineError(ErrorCodes.ConflictingUpdateOperators, `Updating the path '${longer.path}' would create a conflict at '${shorter.path}'`);
      }
    }
  }
}

function compileOperator(op: string, path: string, arg: unknown, options: UpdateOptions, cmp: StringComparator | undefined): OperatorFn {
  switch (op) {
    case "$set":
    case "$setOnInsert":
      return (w, parts) => {
        const cur = w.get(parts);
        if (cur !== undefined && bsonIdentical(cur, arg)) return;
        w.set(parts, cloneValue(arg));
      };
    case "$unset":
      return (w, parts) => {
        w.unset(parts);
      };
    case "$inc":
    case "$mul":
      return arithmeticOp(op, path, arg);
    case "$min":
    case "$max":
      return (w, parts, ctx) => {
        const cur = w.get(parts);
        if (cur === undefined) {
          w.set(parts, cloneValue(arg));
          return;
        }
        const c = compareValues(arg, cur, ctx.cmp);
        if (op === "$min" ? c < 0 : c > 0) w.set(parts, cloneValue(arg));
      };
    case "$currentDate":
      return currentDateOp(arg);
    case "$push":
      return pushOp(path, arg, options);
    case "$addToSet":
      return addToSetOp(path, arg, cmp);
    case "$pop":
      return popOp(path, arg);
    case "$pull":
      return pullOp(path, arg, options);
    case "$pullAll":
      return pullAllOp(path, arg, cmp);
    case "$bit":
      return bitOp(path, arg);
    default:
      throw new EngineError(ErrorCodes.FailedToParse, `Unknown modifier: ${op}`);
  }
}

function describeDocForError(doc: Document): string {
  return Object.prototype.hasOwnProperty.call(doc, "_id") ? `{_id: ${formatBson(doc._id)}}` : "{}";
}

function arithmeticOp(op: "$inc" | "$mul", path: string, arg: unknown): OperatorFn {
  const verb = op === "$inc" ? "increment" : "multiply";
  if (numericKind(arg) === undefined) {
    throw new EngineError(ErrorCodes.TypeMismatch, `Cannot ${verb} with non-numeric argument: {${path}: ${formatBson(arg)}}`);
  }
  return (w, parts, ctx) => {
    const cur = w.get(parts);
    if (cur === undefined) {
      // A missing field becomes the increment ($inc) or a zero of the multiplier's type ($mul).
      w.set(parts, op === "$inc" ? arg : multiply(arg, new Int32(0)));
      return;
    }
    if (numericKind(cur) === undefined) {
      throw new EngineError(
        ErrorCodes.TypeMismatch,
        `Cannot apply ${op} to a value of non-numeric type. ${describeDocForError(ctx.doc)} has the field '${parts[parts.length - 1]}' of non-numeric type ${bsonTypeName(cur)}`,
      );
    }
    let result: unknown;
    try {
      result = op === "$inc" ? add(cur, arg, "error") : multiply(cur, arg, "error");
    } catch (e) {
      if (e instanceof EngineError && e.code === ErrorCodes.BadValue) {
        throw new EngineError(ErrorCodes.BadValue, `Failed to apply ${op} operations to current value (${formatBson(cur)}) for document ${describeDocForError(ctx.doc)}`);
      }
      throw e;
    }
    if (!bsonIdentical(result, cur)) w.set(parts, result);
  };
}

function currentDateOp(arg: unknown): OperatorFn {
  let type: "date" | "timestamp";
  if (arg === true || arg === false) type = "date";
  else if (isDocument(arg) && Object.keys(arg).length === 1 && (arg.$type === "date" || arg.$type === "timestamp")) type = arg.$type;
  else {
    throw new EngineError(ErrorCodes.BadValue, `${formatBson(arg)} is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).`);
  }
  return (w, parts, ctx) => {
    if (type === "date") w.set(parts, new Date(ctx.now.getTime()));
    else w.set(parts, nextTimestamp(ctx.now));
  };
}

// A process-wide logical clock (like the server's): not a registry, just the last value handed out.
let lastTs = { t: 0, i: 0 };

/** Timestamps generated by `$currentDate` are unique and increasing, like the server's clock. */
function nextTimestamp(now: Date): Timestamp {
  const t = Math.floor(now.getTime() / 1000);
  lastTs = t > lastTs.t ? { t, i: 1 } : { t: lastTs.t, i: lastTs.i + 1 };
  return new Timestamp({ t: lastTs.t, i: lastTs.i });
}

function requireArrayField(op: string, cur: unknown, parts: string[], ctx: RunCtx): unknown[] {
  if (!Array.isArray(cur)) {
    const field = parts[parts.length - 1];
    if (op === "$addToSet") {
      throw new EngineError(ErrorCodes.BadValue, `Cannot apply $addToSet to non-array field. Field named '${field}' has non-array type ${bsonTypeName(cur)}`);
    }
    if (op === "$pull" || op === "$pullAll") throw new EngineError(ErrorCodes.BadValue, "Cannot apply $pull to a non-array value");
    if (op === "$pop") throw new EngineError(ErrorCodes.TypeMismatch, `Path '${parts.join(".")}' contains an element of non-array type '${bsonTypeName(cur)}'`);
    throw new EngineError(ErrorCodes.BadValue, `The field '${parts.join(".")}' must be an array but is of type ${bsonTypeName(cur)} in document ${describeDocForError(ctx.doc)}`);
  }
  return cur;
}

function integerArg(op: string, name: string, v: unknown): number {
  const d = toDouble(v);
  if (numericKind(v) === undefined || !Number.isInteger(d)) {
    throw new EngineError(ErrorCodes.BadValue, `The value for ${name} must be an integer value but found ${formatBson(v)}`);
  }
  void op;
  return d;
}

function pushOp(path: string, arg: unknown, options: UpdateOptions): OperatorFn {
  let each: unknown[] = [arg];
  let position: number | undefined;
  let slice: number | undefined;
  let sorter: ((xs: unknown[]) => unknown[]) | undefined;
  if (isDocument(arg) && "$each" in arg) {
    for (const k of Object.keys(arg)) {
      if (k !== "$each" && k !== "$slice" && k !== "$sort" && k !== "$position") {
        throw new EngineError(ErrorCodes.BadValue, `Unrecognized clause in $push: ${k}`);
      }
    }
    if (!Array.isArray(arg.$each)) {
      throw new EngineError(ErrorCodes.BadValue, `The argument to $each in $push must be an array but it was of type: ${bsonTypeName(arg.$each)}`);
    }
    each = arg.$each;
    if ("$position" in arg) position = integerArg("$push", "$position", arg.$position);
    if ("$slice" in arg) slice = integerArg("$push", "$slice", arg.$slice);
    if ("$sort" in arg) sorter = pushSorter(arg.$sort, options.collation);
  }
  return (w, parts, ctx) => {
    const cur = w.get(parts);
    const base = cur === undefined ? [] : requireArrayField("$push", cur, parts, ctx);
    let next = base.slice();
    const items = each.map(cloneValue);
    if (position === undefined) next.push(...items);
    else {
      let at = position < 0 ? Math.max(0, next.length + position) : Math.min(position, next.length);
      if (Number.isNaN(at)) at = next.length;
      next.splice(at, 0, ...items);
    }
    if (sorter !== undefined) next = sorter(next);
    if (slice !== undefined) next = slice >= 0 ? next.slice(0, slice) : next.slice(Math.max(0, next.length + slice));
    if (cur !== undefined && bsonIdentical(cur, next)) return;
    w.set(parts, w.adopt(next));
  };
}

function pushSorter(spec: unknown, collation: Collation | undefined): (xs: unknown[]) => unknown[] {
  const bad = () =>
    new EngineError(ErrorCodes.BadValue, "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields");
  if (numericKind(spec) !== undefined) {
    const d = toDouble(spec);
    if (d !== 1 && d !== -1) throw bad();
    const cmp = stringComparator(collation);
    return (xs) => xs.map((v, i) => ({ v, i })).sort((a, b) => d * compareValues(a.v, b.v, cmp) || a.i - b.i).map((x) => x.v);
  }
  if (!isDocument(spec) || Object.keys(spec).length === 0) throw bad();
  for (const k of Object.keys(spec)) {
    if (k.startsWith("$") || k === "" || k.endsWith(".") || k.startsWith(".")) throw bad();
  }
  const sort = compileSort(spec, collation);
  // Non-document elements have no fields: they sort as if every sort field were missing.
  const empty = sort.keyOf({});
  return (xs) =>
    xs
      .map((v, i) => ({ v, i, key: isDocument(v) ? sort.keyOf(v) : empty }))
      .sort((a, b) => sort.compareKeys(a.key, b.key) || a.i - b.i)
      .map((x) => x.v);
}

function addToSetOp(path: string, arg: unknown, cmp: StringComparator | undefined): OperatorFn {
  let each: unknown[] = [arg];
  if (isDocument(arg) && "$each" in arg) {
    if (Object.keys(arg).length !== 1) {
      throw new EngineError(ErrorCodes.BadValue, `Found unexpected fields after $each in $addToSet: ${formatBson(arg)}`);
    }
    if (!Array.isArray(arg.$each)) {
      throw new EngineError(ErrorCodes.TypeMismatch, `The argument to $each in $addToSet must be an array but it was of type ${bsonTypeName(arg.$each)}`);
    }
    each = arg.$each;
  }
  void path;
  return (w, parts, ctx) => {
    const cur = w.get(parts);
    const base = cur === undefined ? [] : requireArrayField("$addToSet", cur, parts, ctx);
    const next = base.slice();
    for (const item of each) {
      if (!next.some((e) => compareValues(e, item, cmp) === 0)) next.push(cloneValue(item));
    }
    if (cur !== undefined && next.length === base.length) return;
    w.set(parts, w.adopt(next));
  };
}

function popOp(path: string, arg: unknown): OperatorFn {
  const d = toDouble(arg);
  if (numericKind(arg) === undefined || (d !== 1 && d !== -1)) {
    throw new EngineError(ErrorCodes.FailedToParse, `$pop expects 1 or -1, found: ${formatBson(arg)}`);
  }
  void path;
  return (w, parts, ctx) => {
    const cur = w.get(parts);
    if (cur === undefined) return;
    const arr = requireArrayField("$pop", cur, parts, ctx);
    if (arr.length === 0) return;
    w.set(parts, w.adopt(d === 1 ? arr.slice(0, -1) : arr.slice(1)));
  };
}

/**
 * `$pull` conditions, as the server's PullNode reads them: a document whose first field is not an
 * operator is a query on element documents; an operator document or a regex applies to each
 * element's value; anything else is equality.
 */
function pullOp(path: string, arg: unknown, options: UpdateOptions): OperatorFn {
  let test: (e: unknown) => boolean;
  if (isDocument(arg) && !isQueryOperatorObject(arg)) {
    const m = compileFilter(arg, { collation: options.collation });
    test = (e) => isDocument(e) && m.matches(e);
  } else if (isDocument(arg) || arg instanceof RegExp || (typeof arg === "object" && arg !== null && (arg as { _bsontype?: unknown })._bsontype === "BSONRegExp")) {
    // The server wraps operator conditions as {"": <condition>} and matches each element as that
    // field, so array elements are traversed like any queried array.
    const m = compileFilter({ "": arg }, { collation: options.collation });
    test = (e) => m.matches({ "": e });
  } else {
    test = compileValuePredicate(arg, { collation: options.collation });
  }
  void path;
  return (w, parts, ctx) => {
    const cur = w.get(parts);
    if (cur === undefined) return;
    const arr = requireArrayField("$pull", cur, parts, ctx);
    const next = arr.filter((e) => !test(e));
    if (next.length !== arr.length) w.set(parts, w.adopt(next));
  };
}

function pullAllOp(path: string, arg: unknown, cmp: StringComparator | undefined): OperatorFn {
  if (!Array.isArray(arg)) throw new EngineError(ErrorCodes.BadValue, `$pullAll requires an array argument but was given a ${bsonTypeName(arg)}`);
  void path;
  return (w, parts, ctx) => {
    const cur = w.get(parts);
    if (cur === undefined) return;
    const arr = requireArrayField("$pullAll", cur, parts, ctx);
    const next = arr.filter((e) => !arg.some((x) => compareValues(e, x, cmp) === 0));
    if (next.length !== arr.length) w.set(parts, w.adopt(next));
  };
}

function bitOp(path: string, arg: unknown): OperatorFn {
  if (!isDocument(arg) || Object.keys(arg).length === 0) {
    throw new EngineError(ErrorCodes.BadValue, `The $bit modifier is not compatible with a ${bsonTypeName(arg)}. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}`);
  }
  const steps = Object.keys(arg).map((k) => {
    if (k !== "and" && k !== "or" && k !== "xor") {
      throw new EngineError(ErrorCodes.BadValue, `The $bit modifier only supports 'and', 'or', and 'xor', not '${k}' which is an unknown operator: {${k}: ${formatBson(arg[k])}}`);
    }
    const kind = numericKind(arg[k]);
    if (kind !== "int" && kind !== "long") {
      throw new EngineError(ErrorCodes.BadValue, `The $bit modifier field must be an Integer(32/64 bit); a '${bsonTypeName(arg[k])}' is not supported here: {${k}: ${formatBson(arg[k])}}`);
    }
    return { k, v: arg[k], kind };
  });
  void path;
  return (w, parts, ctx) => {
    const cur = w.get(parts);
    const curKind = cur === undefined ? "int" : numericKind(cur);
    if (curKind !== "int" && curKind !== "long") {
      throw new EngineError(
        ErrorCodes.BadValue,
        `Cannot apply $bit to a value of non-integral type.${describeDocForError(ctx.doc)} has the field ${parts[parts.length - 1]} of non-integer type ${bsonTypeName(cur)}`,
      );
    }
    let isLong = curKind === "long";
    let acc = cur === undefined ? 0n : bigOf(cur);
    for (const s of steps) {
      const x = bigOf(s.v);
      if (s.kind === "long") isLong = true;
      acc = s.k === "and" ? acc & x : s.k === "or" ? acc | x : acc ^ x;
    }
    const result = isLong ? Long.fromBigInt(BigInt.asIntN(64, acc)) : new Int32(Number(BigInt.asIntN(32, acc)));
    if (cur !== undefined && bsonIdentical(cur, result)) return;
    w.set(parts, result);
  };
}

function bigOf(v: unknown): bigint {
  if (numericKind(v) === "long") return typeof v === "bigint" ? v : (v as Long).toBigInt();
  return BigInt(toDouble(v));
}

function renameTarget(path: string, arg: unknown, parts: string[]): string[] {
  if (typeof arg !== "string") {
    throw new EngineError(ErrorCodes.BadValue, `The 'to' field for $rename must be a string: ${path}: ${formatBson(arg)}`);
  }
  const target = splitUpdatePath(arg, "$rename");
  if (hasPositional(parts) || hasPositional(target)) {
    throw new EngineError(ErrorCodes.BadValue, `The source field for $rename may not be dynamic: ${path}`);
  }
  if (arg === path) throw new EngineError(ErrorCodes.BadValue, `The source and target field for $rename must differ: ${path}: "${arg}"`);
  const n = Math.min(parts.length, target.length);
  if (parts.slice(0, n).join(".") === target.slice(0, n).join(".")) {
    throw new EngineError(ErrorCodes.BadValue, `The source and target field for $rename must not be on the same path: ${path}: "${arg}"`);
  }
  return target;
}

function renameOp(source: string[], target: string[]): OperatorFn {
  return (w, _parts, ctx) => {
    // Renames through arrays are refused: the server cannot tell which element is meant.
    const check = (parts: string[], what: string) => {
      let cur: unknown = w.root;
      for (let i = 0; i < parts.length - 1; i++) {
        cur = isDocument(cur) ? cur[parts[i]!] : undefined;
        if (Array.isArray(cur)) {
          throw new EngineError(ErrorCodes.BadValue, `The ${what} field cannot be an array element, '${parts.join(".")}' in doc with ${parts.slice(0, i + 1).join(".")} set to ${formatBson(cur)}`);
        }
      }
    };
    check(source, "source");
    const value = w.get(source);
    if (value === undefined) return;
    check(target, "destination");
    void ctx;
    w.unset(source);
    w.set(target, value);
  };
}
