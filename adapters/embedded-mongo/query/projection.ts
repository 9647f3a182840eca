import { EngineError, ErrorCodes } from "../engine-error.js";
import { isDocument } from "./document-path.js";
import { compileExpression } from "./expression.js";
import type { CompiledExpression, EvalScope } from "./expression.js";
import { compileFilter } from "./filter.js";
import type { Matcher } from "./filter.js";
import { numericKind, toDouble } from "./numeric.js";
import type { Collation, Document } from "./types.js";

/** Options for {@link compileProjection}. */
export interface ProjectionOptions {
  readonly collation?: Collation;
  /**
   * `"find"` (default): find/findAndModify projection with `$slice`, `$elemMatch` and positional
   * `.$`. `"aggregate"`: the `$project` stage, where `{$...}` values are expressions.
   */
  readonly mode?: "find" | "aggregate";
}

/** Per-document inputs: the query's matched array position (for `.$`) and expression scope. */
export interface ProjectOptions extends EvalScope {
  readonly positional?: number;
}

/**
 * A compiled projection.
 *
 * @example
 * const p = compileProjection({ name: 1, "tags.$": 1 });
 * p.apply({ _id: 1, name: "a", tags: ["x", "y"], other: 1 }, { positional: 1 });
 * // {_id: 1, name: "a", tags: ["y"]}
 */
export interface CompiledProjection {
  /** Whether the projection keeps only the listed fields (`"inclusion"`) or drops them. */
  readonly kind: "inclusion" | "exclusion";
  apply(doc: Document, options?: ProjectOptions): Document;
}

type Leaf =
  | { readonly t: "include" }
  | { readonly t: "exclude" }
  | { readonly t: "expr"; readonly expr: CompiledExpression }
  | { readonly t: "slice"; readonly skip: number | undefined; readonly limit: number }
  | { readonly t: "elemMatch"; readonly matcher: Matcher }
  | { readonly t: "positional" };

interface Node {
  readonly children: Map<string, Node | Leaf>;
}

function isNode(x: Node | Leaf): x is Node {
  return (x as Node).children !== undefined;
}

function truthyFlag(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (numericKind(v) !== undefined) return toDouble(v) !== 0;
  return undefined;
}

/**
 * Compiles a projection. Follows MongoDB 4.4+ rules: `_id` is included unless excluded; inclusion
 * and exclusion cannot be mixed (31254 / 31253) except for `_id`; dotted paths and nested
 * specifications apply inside embedded documents and arrays of documents; overlapping paths are a
 * path collision (31250). Find projections also take `$slice`, `$elemMatch` (first matching
 * element) and positional `a.$` (the element the query matched); other values are aggregation
 * expressions computing new fields. `$meta` throws BadValue: there are no text scores here.
 *
 * @example
 * compileProjection({ _id: 0, comments: { $slice: -2 } }).apply({ _id: 1, comments: [1, 2, 3], t: "x" });
 * // {comments: [2, 3], t: "x"}
 */
export function compileProjection(spec: Document, options: ProjectionOptions = {}): CompiledProjection {
  if (!isDocument(spec)) throw new EngineError(ErrorCodes.TypeMismatch, "projection must be an object");
  const mode = options.mode ?? "find";
  const root: Node = { children: new Map() };
  let inclusion = false;
  let exclusion = false;
  let positionalCount = 0;
  let idLeaf: Leaf | undefined;

  const classify = (path: string, leaf: Leaf): void => {
    const isId = path === "_id";
    if (leaf.t === "exclude") {
      if (isId) return;
      if (inclusion) throw new EngineError(31254, `Cannot do exclusion on field ${path} in inclusion projection`);
      exclusion = true;
    } else if (leaf.t === "include" || leaf.t === "expr" || leaf.t === "positional" || leaf.t === "elemMatch") {
      if (isId && leaf.t === "include") return;
      if (exclusion) throw new EngineError(31253, `Cannot do inclusion on field ${path} in exclusion projection`);
      inclusion = true;
    }
  };

  const add = (path: string, value: unknown): void => {
    if (path.startsWith("$")) throw new EngineError(16410, `FieldPath field names may not start with '$'. Consider using $getField or $setField.`);
    if (path === "" || path.split(".").some((p) => p === "")) throw new EngineError(ErrorCodes.BadValue, `FieldPath field names may not be empty strings.`);
    let parts = path.split(".");
    let leaf: Leaf;
    if (mode === "find" && parts[parts.length - 1] === "$") {
      if (truthyFlag(value) !== true) throw new EngineError(31395, "positional projection cannot be used with exclusion");
      positionalCount++;
      if (positionalCount > 1) throw new EngineError(31276, "Cannot specify more than one positional projection per query.");
      parts = parts.slice(0, -1);
      if (parts.includes("$")) throw new EngineError(31394, "As of 4.4, it's illegal to specify positional operator in the middle of a path.");
      leaf = { t: "positional" };
    } else if (parts.includes("$")) {
      throw new EngineError(31394, "As of 4.4, it's illegal to specify positional operator in the middle of a path.");
    } else {
      const flag = truthyFlag(value);
      if (flag !== undefined) leaf = { t: flag ? "include" : "exclude" };
      else if (isDocument(value) && Object.keys(value).length > 0 && !Object.keys(value)[0]!.startsWith("$")) {
        // Nested specification: {a: {b: 1}} is the same as {"a.b": 1}.
        for (const k of Object.keys(value)) add(`${path}.${k}`, value[k]);
        return;
      } else leaf = operatorLeaf(path, value, mode, options);
    }
    classify(parts.join("."), leaf);
    if (parts.length === 1 && parts[0] === "_id") idLeaf = leaf;
    insert(root, parts, leaf, path);
  };

  for (const k of Object.keys(spec)) add(k, spec[k]);

  const kind: "inclusion" | "exclusion" = inclusion ? "inclusion" : exclusion ? "exclusion" : idOnlyInclusion(idLeaf, root) ? "inclusion" : "exclusion";
  const excludeId = idLeaf !== undefined && idLeaf.t === "exclude";
  if (kind === "inclusion" && !excludeId && !root.children.has("_id")) root.children.set("_id", { t: "include" });
  if (mode === "aggregate" && root.children.size === 0 && !excludeId) {
    throw new EngineError(51272, "projection specification must have at least one field");
  }

  return {
    kind,
    apply(doc, opts = {}) {
      return kind === "inclusion" ? includeDoc(root, doc, doc, opts) : excludeDoc(root, doc, doc, opts);
    },
  };
}

function idOnlyInclusion(idLeaf: Leaf | undefined, root: Node): boolean {
  // {_id: 1} alone is an inclusion projection of just _id; $slice-only projections keep the rest.
  if (idLeaf !== undefined && idLeaf.t === "include") return true;
  for (const v of root.children.values()) if (!isNode(v) && v.t === "include") return true;
  return false;
}

function operatorLeaf(path: string, value: unknown, mode: "find" | "aggregate", options: ProjectionOptions): Leaf {
  if (mode === "find" && isDocument(value) && Object.keys(value).length === 1) {
    const op = Object.keys(value)[0]!;
    const arg = value[op];
    if (op === "$slice") {
      if (Array.isArray(arg) && arg.length === 2 && numericKind(arg[0]) !== undefined && numericKind(arg[1]) !== undefined) {
        const limit = toDouble(arg[1]);
        if (limit <= 0) throw new EngineError(ErrorCodes.BadValue, `$slice limit must be positive`);
        return { t: "slice", skip: Math.trunc(toDouble(arg[0])), limit: Math.trunc(limit) };
      }
      if (numericKind(arg) !== undefined) return { t: "slice", skip: undefined, limit: Math.trunc(toDouble(arg)) };
      // Anything else is the $slice aggregation expression.
    } else if (op === "$elemMatch") {
      if (path.includes(".")) throw new EngineError(ErrorCodes.BadValue, "Cannot use $elemMatch projection on a nested field.");
      if (!isDocument(arg)) throw new EngineError(ErrorCodes.BadValue, "elemMatch: Invalid argument, object required.");
      const m = compileFilter({ [path]: { $elemMatch: arg } }, { collation: options.collation });
      return { t: "elemMatch", matcher: m };
    }
  }
  if (isDocument(value) && "$meta" in value) {
    throw new EngineError(ErrorCodes.BadValue, `$meta projection of ${JSON.stringify(value.$meta)} is not supported by the embedded engine`);
  }
  return { t: "expr", expr: compileExpression(value, { collation: options.collation }) };
}

function insert(root: Node, parts: string[], leaf: Leaf, path: string): void {
  let node = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const existing = node.children.get(parts[i]!);
    if (existing === undefined) {
      const child: Node = { children: new Map() };
      node.children.set(parts[i]!, child);
      node = child;
    } else if (isNode(existing)) node = existing;
    else throw new EngineError(31250, `Path collision at ${path} remaining portion ${parts.slice(i + 1).join(".")}`);
  }
  const last = parts[parts.length - 1]!;
  if (node.children.has(last)) throw new EngineError(31250, `Path collision at ${path}`);
  node.children.set(last, leaf);
}

function sliceArray(arr: unknown[], leaf: { skip: number | undefined; limit: number }): unknown[] {
  if (leaf.skip === undefined) {
    return leaf.limit >= 0 ? arr.slice(0, leaf.limit) : arr.slice(Math.max(0, arr.length + leaf.limit));
  }
  const start = leaf.skip >= 0 ? Math.min(leaf.skip, arr.length) : Math.max(0, arr.length + leaf.skip);
  return arr.slice(start, start + leaf.limit);
}

function positionalPick(value: unknown, opts: ProjectOptions): unknown {
  if (!Array.isArray(value)) return value;
  const pos = opts.positional;
  if (pos === undefined || pos >= value.length) {
    throw new EngineError(51246, "Executor error during find command :: caused by :: positional operator '.$' couldn't find a matching element in the array");
  }
  return [value[pos]];
}

function includeDoc(node: Node, doc: Document, root: Document, opts: ProjectOptions): Document {
  const out: Document = {};
  for (const k of Object.keys(doc)) {
    const spec = node.children.get(k);
    if (spec === undefined) continue;
    const v = doc[k];
    if (isNode(spec)) {
      const projected = includeValue(spec, v, root, opts);
      if (projected !== undefined) out[k] = projected;
      continue;
    }
    switch (spec.t) {
      case "include":
        out[k] = v;
        break;
      case "slice":
        out[k] = Array.isArray(v) ? sliceArray(v, spec) : v;
        break;
      case "positional":
        out[k] = positionalPick(v, opts);
        break;
      case "elemMatch": {
        const d = spec.matcher.matchDetails({ [k]: v });
        if (d.matched && Array.isArray(v) && d.positional !== undefined) out[k] = [v[d.positional]];
        break;
      }
      default:
        break;
    }
  }
  // Computed fields, in specification order, after the kept ones (new sub-documents as needed).
  for (const [k, spec] of node.children) {
    if (isNode(spec)) {
      if (!(k in out) && hasExpr(spec)) {
        const sub = includeValue(spec, isDocument(doc[k]) ? doc[k] : {}, root, opts);
        if (sub !== undefined) out[k] = sub;
      }
      continue;
    }
    if (spec.t !== "expr") continue;
    // Field paths in computed fields are relative to the whole document, at any nesting level.
    const v = spec.expr(root, opts);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function hasExpr(node: Node): boolean {
  for (const v of node.children.values()) {
    if (isNode(v) ? hasExpr(v) : v.t === "expr") return true;
  }
  return false;
}

function includeValue(node: Node, v: unknown, root: Document, opts: ProjectOptions): unknown {
  if (isDocument(v)) return includeDoc(node, v, root, opts);
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const e of v) {
      // Inclusion keeps documents (and nested arrays) only; scalars have none of the listed fields.
      if (isDocument(e) || Array.isArray(e)) out.push(includeValue(node, e, root, opts));
      else if (hasExpr(node)) out.push(includeDoc(node, {}, root, opts));
    }
    return out;
  }
  return hasExpr(node) ? includeDoc(node, {}, root, opts) : undefined;
}

function excludeDoc(node: Node, doc: Document, root: Document, opts: ProjectOptions): Document {
  const out: Document = {};
  for (const k of Object.keys(doc)) {
    const spec = node.children.get(k);
    const v = doc[k];
    if (spec === undefined) {
      out[k] = v;
      continue;
    }
    if (isNode(spec)) {
      out[k] = excludeValue(spec, v, root, opts);
      continue;
    }
    switch (spec.t) {
      case "exclude":
        break;
      case "slice":
        out[k] = Array.isArray(v) ? sliceArray(v, spec) : v;
        break;
      default:
        out[k] = v;
    }
  }
  return out;
}

function excludeValue(node: Node, v: unknown, root: Document, opts: ProjectOptions): unknown {
  if (isDocument(v)) return excludeDoc(node, v, root, opts);
  if (Array.isArray(v)) return v.map((e) => excludeValue(node, e, root, opts));
  return v;
}
