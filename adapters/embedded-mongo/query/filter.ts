import type { Binary, Long } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { canonicalRank, compareValues, equalityKey, RANK_MAXKEY, RANK_MINKEY, RANK_NULL, RANK_NUMBER, stringComparator } from "./bson-order.js";
import type { StringComparator } from "./bson-order.js";
import { parseTypeSpec } from "./bson-type.js";
import { isDocument, MATCH, NO_MATCH, walkPath } from "./document-path.js";
import type { LeafTest } from "./document-path.js";
import { compileExpression, isTruthy } from "./expression.js";
import type { EvalScope } from "./expression.js";
import { compileJsonSchema } from "./json-schema.js";
import { compareNumbers, convertNumber, isNaNValue, numericKind, toDouble, toInt64 } from "./numeric.js";
import { toJsRegExp } from "./regex.js";
import type { Collation, Document } from "./types.js";

/**
 * A compiled filter. `matchDetails` also reports the array position that satisfied the query, which
 * the positional `$` update and projection operators use.
 *
 * @example
 * const m = compileFilter({ "tags": "b" });
 * m.matches({ tags: ["a", "b"] });      // true
 * m.matchDetails({ tags: ["a", "b"] }); // {matched: true, positional: 1}
 */
export interface Matcher {
  matches(doc: Document): boolean;
  matchDetails(doc: Document): { matched: boolean; positional?: number };
  /** `matches` with per-call `$expr` variables and clock (e.g. `$lookup` `let` bindings). */
  matchesWith(doc: Document, scope: EvalScope): boolean;
}

/** Options for {@link compileFilter}. `variables` feed `$$name` references inside `$expr`. */
export interface FilterOptions {
  readonly collation?: Collation;
  readonly variables?: Readonly<Record<string, unknown>>;
  /** `$$NOW` / `$$CLUSTER_TIME` for `$expr`; defaults to the time of evaluation. */
  readonly now?: Date;
}

/** A compiled predicate on the whole document: `NO_MATCH`, `MATCH` or a recorded array position. */
type DocPredicate = (doc: Document) => number;

interface Ctx {
  readonly cmp: StringComparator | undefined;
  readonly options: FilterOptions;
  /** The `$expr` scope of the evaluation in progress (swapped by `matchesWith`). */
  readonly scope: { current: EvalScope };
}

/**
 * Compiles a MongoDB query filter once into closures; evaluation does no re-parsing. Implements the
 * whole query language except `$where`, `$text` and geospatial operators (those throw with a clear
 * message). Errors use the server's codes: BadValue (2) for unknown or malformed operators.
 *
 * @example
 * const m = compileFilter({ qty: { $gte: 5 }, tags: { $in: ["a", /^b/] } }, { collation: { locale: "en", strength: 2 } });
 * m.matches({ qty: 10, tags: ["beta"] }); // true
 */
export function compileFilter(filter: Document, options: FilterOptions = {}): Matcher {
  if (!isDocument(filter)) throw new EngineError(ErrorCodes.BadValue, "query filter must be an object");
  const scope = { current: { variables: options.variables, now: options.now } as EvalScope };
  const ctx: Ctx = { cmp: stringComparator(options.collation), options, scope };
  const pred = compileDocument(filter, ctx, true);
  return {
    matches: (doc) => pred(doc) !== NO_MATCH,
    matchesWith: (doc, s) => {
      const saved = scope.current;
      scope.current = s;
      try {
        return pred(doc) !== NO_MATCH;
      } finally {
        scope.current = saved;
      }
    },
    matchDetails: (doc) => {
      const r = pred(doc);
      if (r === NO_MATCH) return { matched: false };
      return r >= 0 ? { matched: true, positional: r } : { matched: true };
    },
  };
}

const ALWAYS: DocPredicate = () => MATCH;
const NEVER: DocPredicate = () => NO_MATCH;

function and(preds: DocPredicate[]): DocPredicate {
  if (preds.length === 0) return ALWAYS;
  if (preds.length === 1) return preds[0]!;
  if (preds.length === 2) {
    const [a, b] = preds as [DocPredicate, DocPredicate];
    return (doc) => {
      const x = a(doc);
      if (x === NO_MATCH) return NO_MATCH;
      const y = b(doc);
      if (y === NO_MATCH) return NO_MATCH;
      return y >= 0 ? y : x;
    };
  }
  return (doc) => {
    // The last child that records a position wins, as in the server's AndMatchExpression.
    let pos = MATCH;
    for (let i = 0; i < preds.length; i++) {
      const r = preds[i]!(doc);
      if (r === NO_MATCH) return NO_MATCH;
      if (r >= 0) pos = r;
    }
    return pos;
  };
}

function not(p: DocPredicate): DocPredicate {
  return (doc) => (p(doc) === NO_MATCH ? MATCH : NO_MATCH);
}

const TOP_LEVEL = new Set(["$and", "$or", "$nor", "$expr", "$where", "$text", "$comment", "$jsonSchema", "$alwaysTrue", "$alwaysFalse", "$sampleRate"]);

function compileDocument(filter: Document, ctx: Ctx, topLevel: boolean): DocPredicate {
  const preds: DocPredicate[] = [];
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    if (key.startsWith("$")) {
      const p = compileTopLevelOperator(key, value, ctx, topLevel);
      if (p !== undefined) preds.push(p);
      continue;
    }
    preds.push(compileField(key, value, ctx));
  }
  return and(preds);
}

function requireFilterArray(op: string, value: unknown): Document[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new EngineError(ErrorCodes.BadValue, `${op} must be a nonempty array`);
  }
  for (const v of value) {
    if (!isDocument(v)) throw new EngineError(ErrorCodes.BadValue, `${op} argument's entries must be objects`);
  }
  return value as Document[];
}

function compileTopLevelOperator(op: string, value: unknown, ctx: Ctx, topLevel: boolean): DocPredicate | undefined {
  switch (op) {
    case "$and":
      return and(requireFilterArray(op, value).map((f) => compileDocument(f, ctx, topLevel)));
    case "$or": {
      const branches = requireFilterArray(op, value).map((f) => compileDocument(f, ctx, topLevel));
      if (branches.length === 1) return branches[0];
      return (doc) => {
        for (let i = 0; i < branches.length; i++) {
          const r = branches[i]!(doc);
          if (r !== NO_MATCH) return r;
        }
        return NO_MATCH;
      };
    }
    case "$nor": {
      const branches = requireFilterArray(op, value).map((f) => compileDocument(f, ctx, topLevel));
      return (doc) => {
        for (let i = 0; i < branches.length; i++) if (branches[i]!(doc) !== NO_MATCH) return NO_MATCH;
        return MATCH;
      };
    }
    case "$comment":
      return undefined;
    case "$alwaysTrue":
    case "$alwaysFalse": {
      const n = toInt64(value);
      if (n !== 1n) throw new EngineError(ErrorCodes.FailedToParse, `${op} must be an integer value of 1`);
      return op === "$alwaysTrue" ? ALWAYS : NEVER;
    }
    case "$expr": {
      if (!topLevel) throw new EngineError(ErrorCodes.BadValue, "$expr can only be applied to the top-level document");
      const expr = compileExpression(value, { collation: ctx.options.collation });
      const scope = ctx.scope;
      return (doc) => (isTruthy(expr(doc, scope.current)) ? MATCH : NO_MATCH);
    }
    case "$jsonSchema": {
      if (!isDocument(value)) throw new EngineError(ErrorCodes.TypeMismatch, "$jsonSchema must be an object");
      const schema = compileJsonSchema(value);
      return (doc) => (schema(doc) ? MATCH : NO_MATCH);
    }
    case "$where":
      throw new EngineError(ErrorCodes.BadValue, "$where is not supported by the embedded engine (server-side JavaScript is disabled)");
    case "$text":
      // Not mongod's IndexNotFound (27): that says to create a text index, which would not help here.
      throw new EngineError(ErrorCodes.BadValue, "$text is not supported by the embedded engine (text indexes are stored but not used): use $regex, or a real MongoDB");
    case "$sampleRate": {
      const rate = toDouble(value);
      if (numericKind(value) === undefined || !(rate >= 0 && rate <= 1)) {
        throw new EngineError(ErrorCodes.BadValue, "numeric argument to $sampleRate must be in [0, 1]");
      }
      return () => (Math.random() < rate ? MATCH : NO_MATCH);
    }
    default:
      throw new EngineError(ErrorCodes.BadValue, `unknown top level operator: ${op}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Field predicates

/**
 * A compiled operator on one path: either a leaf test (applied to each value the path reaches) or
 * a negation of a group of operators (applied to the path as a whole).
 */
type OpNode =
  | { readonly kind: "leaf"; readonly test: LeafTest; readonly expand: boolean }
  | { readonly kind: "not"; readonly nodes: readonly OpNode[] };

function isDbRefLike(obj: Document): boolean {
  return "$ref" in obj || "$id" in obj || "$db" in obj;
}

/** The server's `isExpressionDocument`: a non-empty object whose first field starts with `$`. */
function isOperatorObject(value: unknown): value is Document {
  if (!isDocument(value)) return false;
  for (const k in value) {
    if (!k.startsWith("$")) return false;
    return !isDbRefLike(value);
  }
  return false;
}

function isRegexValue(v: unknown): boolean {
  return v instanceof RegExp || (typeof v === "object" && v !== null && (v as { _bsontype?: unknown })._bsontype === "BSONRegExp");
}

function regexSourceOf(v: unknown): [string, string] {
  if (v instanceof RegExp) return [v.source, v.flags.replace(/[gyd]/g, "")];
  const r = v as { pattern: string; options: string };
  return [r.pattern, r.options];
}

function compileField(path: string, value: unknown, ctx: Ctx): DocPredicate {
  const parts = path.split(".");
  let nodes: OpNode[];
  if (isOperatorObject(value)) nodes = compileOperators(value, ctx, path);
  else if (isRegexValue(value)) nodes = [leaf(regexTest(value))];
  else nodes = [leaf(equalityTest(value, ctx))];
  return and(nodes.map((n) => nodeToDocPredicate(n, parts)));
}

function leaf(test: LeafTest, expand = true): OpNode {
  return { kind: "leaf", test, expand };
}

function nodeToDocPredicate(node: OpNode, parts: readonly string[]): DocPredicate {
  if (node.kind === "leaf") {
    const { test, expand } = node;
    if (parts.length === 1) {
      // Fast path for top-level fields: no walker state to set up.
      const f = parts[0]!;
      return (doc) => {
        const v = Object.prototype.hasOwnProperty.call(doc, f) ? doc[f] : undefined;
        if (expand && Array.isArray(v)) {
          for (let j = 0; j < v.length; j++) if (test(v[j]) !== NO_MATCH) return j;
        }
        return test(v);
      };
    }
    return (doc) => walkPath(doc, parts, test, expand);
  }
  const inner = and(node.nodes.map((n) => nodeToDocPredicate(n, parts)));
  return not(inner);
}

/** Evaluates operator nodes against a single value (the `$elemMatch` value form). */
function nodeToElementTest(node: OpNode): (v: unknown) => boolean {
  if (node.kind === "leaf") {
    const t = node.test;
    return (v) => t(v) !== NO_MATCH;
  }
  const inner = node.nodes.map(nodeToElementTest);
  return (v) => {
    for (const t of inner) if (!t(v)) return true;
    return false;
  };
}

const PATH_OPERATORS = new Set([
  "$eq",
  "$ne",
  "$gt",
  "$gte",
  "$lt",
  "$lte",
  "$in",
  "$nin",
  "$exists",
  "$type",
  "$size",
  "$all",
  "$elemMatch",
  "$regex",
  "$options",
  "$not",
  "$mod",
  "$bitsAllSet",
  "$bitsAllClear",
  "$bitsAnySet",
  "$bitsAnyClear",
]);

const GEO_OPERATORS = new Set(["$near", "$nearSphere", "$geoWithin", "$geoIntersects", "$within", "$box", "$center", "$centerSphere", "$polygon", "$maxDistance", "$minDistance", "$geometry"]);

function compileOperators(spec: Document, ctx: Ctx, path: string): OpNode[] {
  const nodes: OpNode[] = [];
  let regexDone = false;
  for (const op of Object.keys(spec)) {
    const arg = spec[op];
    if (!PATH_OPERATORS.has(op)) {
      if (GEO_OPERATORS.has(op)) throw new EngineError(ErrorCodes.BadValue, `${op} is not supported by the embedded engine (no geospatial queries)`);
      if (op === "$where") throw new EngineError(ErrorCodes.BadValue, "$where cannot be applied to a field");
      throw new EngineError(ErrorCodes.BadValue, `unknown operator: ${op}`);
    }
    switch (op) {
      case "$eq":
        nodes.push(leaf(equalityTest(arg, ctx)));
        break;
      case "$ne":
        if (isRegexValue(arg)) throw new EngineError(ErrorCodes.BadValue, "Can't have regex as arg to $ne.");
        nodes.push({ kind: "not", nodes: [leaf(equalityTest(arg, ctx))] });
        break;
      case "$gt":
      case "$gte":
      case "$lt":
      case "$lte":
        if (isRegexValue(arg)) throw new EngineError(ErrorCodes.BadValue, `Can't have RegEx as arg to predicate over field '${path}'.`);
        nodes.push(leaf(comparisonTest(op, arg, ctx)));
        break;
      case "$in":
        nodes.push(leaf(inTest(op, arg, ctx)));
        break;
      case "$nin":
        nodes.push({ kind: "not", nodes: [leaf(inTest(op, arg, ctx))] });
        break;
      case "$exists": {
        const exists = leaf((v) => (v === undefined ? NO_MATCH : MATCH));
        nodes.push(isTruthyQueryValue(arg) ? exists : { kind: "not", nodes: [exists] });
        break;
      }
      case "$type": {
        const spec = parseTypeSpec(arg);
        nodes.push(leaf((v) => (spec.matches(v) ? MATCH : NO_MATCH)));
        break;
      }
      case "$size":
        nodes.push(leaf(sizeTest(arg), false));
        break;
      case "$all":
        nodes.push(...allNodes(arg, ctx, path));
        break;
      case "$elemMatch":
        nodes.push(elemMatchNode(arg, ctx, path));
        break;
      case "$regex":
      case "$options": {
        if (regexDone) break;
        regexDone = true;
        nodes.push(leaf(regexFromDocument(spec)));
        break;
      }
      case "$not":
        nodes.push(notNode(arg, ctx, path));
        break;
      case "$mod":
        nodes.push(leaf(modTest(arg)));
        break;
      default:
        nodes.push(leaf(bitTest(op, arg)));
    }
  }
  return nodes;
}

/** `$exists` reads its operand like the server's `trueValue`: 0, false and null are false. */
function isTruthyQueryValue(v: unknown): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (numericKind(v) !== undefined) return compareNumbers(v, 0) !== 0;
  return true;
}

// --- equality and comparisons -----------------------------------------------------------------

/**
 * A leaf test for `{path: value}` / `$eq`. Null matches null and missing. Strings, numbers and
 * ObjectIds get specialised fast paths; everything else uses the full BSON comparison.
 */
function equalityTest(value: unknown, ctx: Ctx): LeafTest {
  if (value === undefined) throw new EngineError(ErrorCodes.BadValue, "cannot compare to undefined");
  if (value === null) return (v) => (v === null || v === undefined ? MATCH : NO_MATCH);
  const cmp = ctx.cmp;
  if (typeof value === "string" && cmp === undefined) {
    return (v) => {
      if (v === value) return MATCH;
      if (typeof v === "object" && v !== null && (v as { _bsontype?: unknown })._bsontype === "BSONSymbol") {
        return String((v as { value: unknown }).value) === value ? MATCH : NO_MATCH;
      }
      return NO_MATCH;
    };
  }
  const rank = canonicalRank(value);
  if (rank === RANK_NUMBER && !isNaNValue(value) && numericKind(value) !== "decimal" && numericKind(value) !== "long") {
    const d = toDouble(value);
    return (v) => {
      if (typeof v === "number") return v === d ? MATCH : NO_MATCH;
      if (canonicalRank(v) !== RANK_NUMBER) return NO_MATCH;
      return compareValues(v, value, undefined) === 0 ? MATCH : NO_MATCH;
    };
  }
  return (v) => (canonicalRank(v) === rank && compareValues(v, value, cmp) === 0 ? MATCH : NO_MATCH);
}

function comparisonTest(op: string, rhs: unknown, ctx: Ctx): LeafTest {
  if (rhs === undefined) throw new EngineError(ErrorCodes.BadValue, "cannot compare to undefined");
  const rank = canonicalRank(rhs);
  const cmp = ctx.cmp;
  const rhsNaN = isNaNValue(rhs);
  const accept = (c: number): boolean => (op === "$gt" ? c > 0 : op === "$gte" ? c >= 0 : op === "$lt" ? c < 0 : c <= 0);
  const rk = numericKind(rhs);
  if ((rk === "int" || rk === "double") && !rhsNaN) {
    // Fast path for the most common range query: a finite double-representable bound, compared
    // directly against Int32/Double/JS-number values; other values take the general path below.
    const d = toDouble(rhs);
    const general = comparisonGeneral(op, rhs, rank, cmp, rhsNaN, accept);
    return (v) => {
      let x: number;
      if (typeof v === "number") x = v;
      else if (typeof v === "object" && v !== null) {
        const tag = (v as { _bsontype?: unknown })._bsontype;
        if (tag !== "Int32" && tag !== "Double") return general(v);
        x = (v as { value: number }).value;
      } else return NO_MATCH;
      if (x !== x) return NO_MATCH; // NaN never satisfies a range bound
      return accept(x < d ? -1 : x > d ? 1 : 0) ? MATCH : NO_MATCH;
    };
  }
  return comparisonGeneral(op, rhs, rank, cmp, rhsNaN, accept);
}

function comparisonGeneral(op: string, rhs: unknown, rank: number, cmp: StringComparator | undefined, rhsNaN: boolean, accept: (c: number) => boolean): LeafTest {
  return (v) => {
    const r = canonicalRank(v);
    if (r !== rank) {
      // Type bracketing: different canonical types never compare, except MinKey/MaxKey bounds.
      if (rank === RANK_MAXKEY) return op === "$lt" || op === "$lte" ? MATCH : NO_MATCH;
      if (rank === RANK_MINKEY) return op === "$gt" || op === "$gte" ? MATCH : NO_MATCH;
      return NO_MATCH;
    }
    if (rank === RANK_NULL) return op === "$gte" || op === "$lte" ? MATCH : NO_MATCH;
    if (rank === RANK_NUMBER) {
      // NaN equals NaN but is otherwise unordered for $lt/$gt-style queries.
      const lhsNaN = isNaNValue(v);
      if (lhsNaN || rhsNaN) return (op === "$gte" || op === "$lte") && lhsNaN && rhsNaN ? MATCH : NO_MATCH;
    }
    return accept(compareValues(v, rhs, cmp)) ? MATCH : NO_MATCH;
  };
}

function inTest(op: string, arg: unknown, ctx: Ctx): LeafTest {
  if (!Array.isArray(arg)) throw new EngineError(ErrorCodes.BadValue, `${op} needs an array`);
  let hasNull = false;
  const regexes: LeafTest[] = [];
  const values: unknown[] = [];
  for (const v of arg) {
    if (isOperatorObject(v)) throw new EngineError(ErrorCodes.BadValue, `cannot nest $ under ${op}`);
    if (isRegexValue(v)) regexes.push(regexTest(v));
    else if (v === null) hasNull = true;
    else if (v === undefined) throw new EngineError(ErrorCodes.BadValue, "InMatchExpression equality cannot be undefined");
    else values.push(v);
  }
  const cmp = ctx.cmp;
  // Without a collation, equalityKey gives exact BSON equality in O(1); with one, strings must be
  // compared by the collator.
  const keys = cmp === undefined ? new Set(values.map(equalityKey)) : undefined;
  const ranks = new Set(values.map(canonicalRank));
  return (v) => {
    if (v === undefined || v === null) {
      if (hasNull) return MATCH;
    } else if (ranks.has(canonicalRank(v))) {
      if (keys !== undefined) {
        if (keys.has(equalityKey(v))) return MATCH;
      } else {
        for (const x of values) if (compareValues(v, x, cmp) === 0 && canonicalRank(x) === canonicalRank(v)) return MATCH;
      }
    }
    for (const re of regexes) if (re(v) !== NO_MATCH) return MATCH;
    return NO_MATCH;
  };
}

// --- regex --------------------------------------------------------------------------------------

function regexTest(value: unknown): LeafTest {
  const [pattern, options] = regexSourceOf(value);
  return compiledRegexTest(pattern, options);
}

function compiledRegexTest(pattern: string, options: string): LeafTest {
  const re = toJsRegExp(pattern, options);
  return (v) => {
    if (typeof v === "string") return re.test(v) ? MATCH : NO_MATCH;
    if (typeof v !== "object" || v === null) return NO_MATCH;
    const tag = (v as { _bsontype?: unknown })._bsontype;
    if (tag === "BSONSymbol") return re.test(String((v as { value: unknown }).value)) ? MATCH : NO_MATCH;
    if (tag === "BSONRegExp" || v instanceof RegExp) {
      // A stored regex matches only the identical regex.
      const [p, o] = regexSourceOf(v);
      return p === pattern && sortFlags(o) === sortFlags(options) ? MATCH : NO_MATCH;
    }
    return NO_MATCH;
  };
}

function sortFlags(f: string): string {
  return [...f].sort().join("");
}

function regexFromDocument(spec: Document): LeafTest {
  if (!("$regex" in spec)) throw new EngineError(ErrorCodes.BadValue, "$options needs a $regex");
  const r = spec.$regex;
  let pattern: string;
  let options = "";
  if (typeof r === "string") pattern = r;
  else if (isRegexValue(r)) [pattern, options] = regexSourceOf(r);
  else throw new EngineError(ErrorCodes.BadValue, "$regex has to be a string");
  if ("$options" in spec) {
    const o = spec.$options;
    if (typeof o !== "string") throw new EngineError(ErrorCodes.BadValue, "$options has to be a string");
    if (options !== "" && o !== "") throw new EngineError(51075, "options set in both $regex and $options");
    options = o || options;
  }
  return compiledRegexTest(pattern, options);
}

// --- $not ---------------------------------------------------------------------------------------

function notNode(arg: unknown, ctx: Ctx, path: string): OpNode {
  if (isRegexValue(arg)) return { kind: "not", nodes: [leaf(regexTest(arg))] };
  if (!isDocument(arg)) throw new EngineError(ErrorCodes.BadValue, "$not needs a regex or a document");
  if (Object.keys(arg).length === 0) throw new EngineError(ErrorCodes.BadValue, "$not cannot be empty");
  if (!isOperatorObject(arg)) throw new EngineError(ErrorCodes.BadValue, `unknown operator: ${Object.keys(arg)[0]}`);
  return { kind: "not", nodes: compileOperators(arg, ctx, path) };
}

// --- arrays -------------------------------------------------------------------------------------

function sizeTest(arg: unknown): LeafTest {
  const kind = numericKind(arg);
  if (kind === undefined) throw new EngineError(ErrorCodes.BadValue, "$size needs a number");
  const n = toDouble(arg);
  if (!Number.isInteger(n)) throw new EngineError(ErrorCodes.BadValue, "$size must be a whole number");
  if (n < 0) throw new EngineError(ErrorCodes.BadValue, "$size may not be negative");
  if (n > 2147483647) throw new EngineError(ErrorCodes.BadValue, "$size must be representable as a 32-bit integer");
  return (v) => (Array.isArray(v) && v.length === n ? MATCH : NO_MATCH);
}

function allNodes(arg: unknown, ctx: Ctx, path: string): OpNode[] {
  if (!Array.isArray(arg)) throw new EngineError(ErrorCodes.BadValue, "$all needs an array");
  if (arg.length === 0) return [leaf(() => NO_MATCH)];
  const first = arg[0];
  if (isDocument(first) && Object.keys(first)[0] === "$elemMatch") {
    return arg.map((e) => {
      if (!isDocument(e) || Object.keys(e)[0] !== "$elemMatch") {
        throw new EngineError(ErrorCodes.BadValue, "$all/$elemMatch has to be consistent");
      }
      return elemMatchNode(e.$elemMatch, ctx, path);
    });
  }
  return arg.map((e) => {
    if (isRegexValue(e)) return leaf(regexTest(e));
    if (isOperatorObject(e)) throw new EngineError(ErrorCodes.BadValue, "no $ expressions in $all");
    return leaf(equalityTest(e, ctx));
  });
}

function elemMatchNode(arg: unknown, ctx: Ctx, path: string): OpNode {
  if (!isDocument(arg)) throw new EngineError(ErrorCodes.BadValue, "$elemMatch needs an Object");
  const keys = Object.keys(arg);
  // Value form when the first field is a path operator ({$gte: 80}); object form when it is a
  // field name or a top-level operator such as $and/$or.
  const valueForm = keys.length > 0 && keys[0]!.startsWith("$") && !TOP_LEVEL.has(keys[0]!) && !isDbRefLike(arg);
  if (valueForm) {
    const tests = compileOperators(arg, ctx, path).map(nodeToElementTest);
    return leaf((v) => {
      if (!Array.isArray(v)) return NO_MATCH;
      outer: for (let j = 0; j < v.length; j++) {
        for (const t of tests) if (!t(v[j])) continue outer;
        return j;
      }
      return NO_MATCH;
    }, false);
  }
  if ("$where" in arg) throw new EngineError(ErrorCodes.BadValue, "$elemMatch cannot contain $where expression");
  const sub = compileDocument(arg, ctx, false);
  return leaf((v) => {
    if (!Array.isArray(v)) return NO_MATCH;
    for (let j = 0; j < v.length; j++) {
      const e = v[j];
      // Embedded documents and arrays are both BSON objects the sub-filter can apply to.
      if ((isDocument(e) || Array.isArray(e)) && sub(e as Document) !== NO_MATCH) return j;
    }
    return NO_MATCH;
  }, false);
}

// --- $mod and bit tests -------------------------------------------------------------------------

function modTest(arg: unknown): LeafTest {
  if (!Array.isArray(arg)) throw new EngineError(ErrorCodes.BadValue, "malformed mod, needs to be an array");
  if (arg.length < 2) throw new EngineError(ErrorCodes.BadValue, "malformed mod, not enough elements");
  if (arg.length > 2) throw new EngineError(ErrorCodes.BadValue, "malformed mod, too many elements");
  const [d, r] = arg;
  if (numericKind(d) === undefined) throw new EngineError(ErrorCodes.BadValue, "malformed mod, divisor not a number");
  if (numericKind(r) === undefined) throw new EngineError(ErrorCodes.BadValue, "malformed mod, remainder not a number");
  const divisor = truncToInt64(d);
  const remainder = truncToInt64(r);
  if (divisor === undefined || remainder === undefined) {
    throw new EngineError(ErrorCodes.BadValue, "malformed mod, divisor and remainder must be finite numbers that fit in a 64-bit integer");
  }
  if (divisor === 0n) throw new EngineError(ErrorCodes.BadValue, "divisor cannot be 0");
  return (v) => {
    if (numericKind(v) === undefined) return NO_MATCH;
    const n = truncToInt64(v);
    if (n === undefined) return NO_MATCH;
    return n % divisor === remainder ? MATCH : NO_MATCH; // bigint % truncates like C++
  };
}

/** Truncates toward zero; `undefined` for NaN/Infinity or values outside int64. */
function truncToInt64(v: unknown): bigint | undefined {
  const l = convertNumber(v, "long");
  return l === undefined ? undefined : (l as Long).toBigInt();
}

const INT64_MASK = (1n << 64n) - 1n;

function bitTest(op: string, arg: unknown): LeafTest {
  let mask = 0n; // as unsigned 64-bit
  let positions: number[] = [];
  if (Array.isArray(arg)) {
    for (const p of arg) {
      const n = toInt64(p);
      if (numericKind(p) === undefined || n === undefined) throw new EngineError(ErrorCodes.BadValue, `bit positions must be an integer but got: ${String(p)}`);
      if (n < 0n) throw new EngineError(ErrorCodes.BadValue, `bit positions must be >= 0 but got: ${String(p)}`);
      if (n > 2147483647n) throw new EngineError(ErrorCodes.BadValue, `bit positions cannot be represented as a 32-bit signed integer: ${String(p)}`);
      positions.push(Number(n));
      mask |= 1n << BigInt(Math.min(Number(n), 63));
    }
  } else if (numericKind(arg) !== undefined) {
    const n = toInt64(arg);
    if (n === undefined) throw new EngineError(ErrorCodes.FailedToParse, `Expected an integer: ${String(arg)}`);
    if (n < 0n) throw new EngineError(ErrorCodes.FailedToParse, `Expected a positive number in: ${String(arg)}`);
    mask = n;
    positions = [];
    for (let b = 0; b < 64; b++) if ((mask >> BigInt(b)) & 1n) positions.push(b);
  } else if (typeof arg === "object" && arg !== null && (arg as { _bsontype?: unknown })._bsontype === "Binary") {
    const bytes = binaryBytes(arg as Binary);
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (byte === 0) continue;
      if (i < 8) mask |= BigInt(byte) << BigInt(8 * i);
      else mask |= 1n << 63n;
      for (let b = 0; b < 8; b++) if (byte & (1 << b)) positions.push(8 * i + b);
    }
  } else {
    throw new EngineError(ErrorCodes.BadValue, `${op} takes an Array, a number, or a BinData but received: ${String(arg)}`);
  }
  const allSet = op === "$bitsAllSet";
  const allClear = op === "$bitsAllClear";
  const anySet = op === "$bitsAnySet";
  const testNumber = (x: bigint): boolean => {
    const u = x & INT64_MASK; // two's complement view, sign-extended to 64 bits
    if (allSet) return (u & mask) === mask;
    if (allClear) return (~u & INT64_MASK & mask) === mask;
    if (anySet) return (u & mask) !== 0n;
    return (~u & INT64_MASK & mask) !== 0n;
  };
  const testBytes = (bytes: Uint8Array): boolean => {
    for (const p of positions) {
      const set = p < bytes.length * 8 && (bytes[p >> 3]! & (1 << (p & 7))) !== 0;
      if (allSet && !set) return false;
      if (allClear && set) return false;
      if (anySet && set) return true;
      if (!allSet && !allClear && !anySet && !set) return true;
    }
    return allSet || allClear;
  };
  return (v) => {
    if (typeof v === "object" && v !== null && (v as { _bsontype?: unknown })._bsontype === "Binary") {
      return testBytes(binaryBytes(v as Binary)) ? MATCH : NO_MATCH;
    }
    const k = numericKind(v);
    if (k === undefined) return NO_MATCH;
    if (k === "double") {
      const d = toDouble(v);
      if (!Number.isInteger(d) || d >= 2 ** 63 || d < -(2 ** 63)) return NO_MATCH;
    }
    const n = toInt64(v);
    if (n === undefined) return NO_MATCH;
    return testNumber(n) ? MATCH : NO_MATCH;
  };
}

function binaryBytes(b: Binary): Uint8Array {
  return b.buffer.subarray(0, b.position);
}

/**
 * Exposed for sibling modules (update's `$pull`) that need single-value operator semantics.
 *
 * @example
 * compileValuePredicate({ $gte: 5 })(new Int32(6)); // true
 */
export function compileValuePredicate(spec: unknown, options: FilterOptions = {}): (v: unknown) => boolean {
  const ctx: Ctx = { cmp: stringComparator(options.collation), options, scope: { current: { variables: options.variables, now: options.now } } };
  if (isOperatorObject(spec)) {
    const tests = compileOperators(spec, ctx, "").map(nodeToElementTest);
    return (v) => {
      for (const t of tests) if (!t(v)) return false;
      return true;
    };
  }
  if (isRegexValue(spec)) {
    const t = regexTest(spec);
    return (v) => t(v) !== NO_MATCH;
  }
  const t = equalityTest(spec, ctx);
  return (v) => t(v) !== NO_MATCH;
}

/**
 * True when `value` is a query operator object such as `{$gt: 1}` (not a DBRef-like document).
 *
 * @example
 * isQueryOperatorObject({ $gt: 1 });            // true
 * isQueryOperatorObject({ $ref: "c", $id: 1 }); // false (a DBRef)
 */
export function isQueryOperatorObject(value: unknown): boolean {
  return isOperatorObject(value);
}
