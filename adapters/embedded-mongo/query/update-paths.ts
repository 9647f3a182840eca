import { EngineError, ErrorCodes } from "../engine-error.js";
import { formatBson } from "./bson-format.js";
import { arrayIndexOf, getOwn, isDocument } from "./document-path.js";
import type { Document } from "./types.js";

/** Arrays grown by an update may not be padded beyond this (the server's limit). */
const MAX_PAD = 1_500_000;

/**
 * Copy-on-write editor for one update application. The input document is never mutated: the
 * first write below a container clones it (and its ancestors), so untouched subtrees stay shared
 * with the original, which also makes diffing old against new cheap.
 *
 * @example
 * const w = new DocWriter({ a: { b: 1 } });
 * w.set(["a", "c"], 2);
 * w.root; // { a: { b: 1, c: 2 } } (a new object; the input is unchanged)
 */
export class DocWriter {
  readonly root: Document;
  /** Whether any write happened (operators skip writes that would not change anything). */
  dirty = false;
  // The containers this writer has copied. Updates touch few containers, so a short array with a
  // linear scan beats a Set (no hashing, one small allocation per update).
  private readonly owned: object[];

  constructor(original: Document) {
    this.root = { ...original };
    this.owned = [this.root];
  }

  /** The current value at a concrete path (numeric components index arrays), or `undefined`. */
  get(parts: readonly string[]): unknown {
    let cur: unknown = this.root;
    for (const p of parts) {
      if (Array.isArray(cur)) {
        const i = arrayIndexOf(p);
        if (i < 0) return undefined;
        cur = cur[i];
      } else if (isDocument(cur)) cur = getOwn(cur, p);
      else return undefined;
    }
    return cur;
  }

  private own<T extends object>(v: T): T {
    if (this.owned.includes(v)) return v;
    const copy = (Array.isArray(v) ? v.slice() : { ...v }) as T;
    this.owned.push(copy);
    return copy;
  }

  /** Marks a freshly built container as writable without copying it. */
  adopt<T extends object>(v: T): T {
    this.owned.push(v);
    return v;
  }

  /**
   * Returns the writable container that holds the last path component, creating intermediate
   * documents (and padding arrays with null) when `create` is set. Throws PathNotViable (28) when a
   * scalar, null or an array indexed by a field name is in the way; returns `undefined` when the
   * path does not exist and `create` is off.
   */
  container(parts: readonly string[], create: boolean): Document | unknown[] | undefined {
    let cur: Document | unknown[] = this.root;
    for (let i = 0; i < parts.length - 1; i++) {
      const p = parts[i]!;
      let next: unknown;
      if (Array.isArray(cur)) {
        const idx = arrayIndexOf(p);
        if (idx < 0) {
          if (!create) return undefined;
          throw cannotCreate(p, parts[i - 1] ?? "", cur);
        }
        next = cur[idx];
        if (next === undefined) {
          if (!create) return undefined;
          padTo(cur, idx);
          next = this.adopt({});
          cur[idx] = next;
        } else if (Array.isArray(next) || isDocument(next)) {
          next = this.own(next);
          cur[idx] = next;
        } else {
          if (!create) return undefined;
          throw cannotCreate(parts[i + 1]!, p, next);
        }
      } else {
        next = getOwn(cur, p);
        if (next === undefined) {
          if (!create) return undefined;
          next = this.adopt({});
          cur[p] = next;
        } else if (Array.isArray(next) || isDocument(next)) {
          next = this.own(next);
          cur[p] = next;
        } else {
          if (!create) return undefined;
          throw cannotCreate(parts[i + 1]!, p, next);
        }
      }
      cur = next as Document | unknown[];
    }
    return cur;
  }

  /** Sets the value at a concrete path, creating what is missing (PathNotViable when blocked). */
  set(parts: readonly string[], value: unknown): void {
    this.dirty = true;
    const c = this.container(parts, true)!;
    const last = parts[parts.length - 1]!;
    if (Array.isArray(c)) {
      const idx = arrayIndexOf(last);
      if (idx < 0) throw cannotCreate(last, parts[parts.length - 2] ?? "", c);
      padTo(c, idx);
      c[idx] = value;
    } else c[last] = value;
  }

  /** Removes a field; an array element becomes null instead (as `$unset` does). No-op if absent. */
  unset(parts: readonly string[]): boolean {
    if (this.get(parts) === undefined) return false;
    const c = this.container(parts, false);
    if (c === undefined) return false;
    const last = parts[parts.length - 1]!;
    if (Array.isArray(c)) {
      const idx = arrayIndexOf(last);
      if (idx < 0 || idx >= c.length) return false;
      if (c[idx] === null) return false;
      c[idx] = null;
    } else delete c[last];
    this.dirty = true;
    return true;
  }
}

function padTo(arr: unknown[], idx: number): void {
  if (idx - arr.length > MAX_PAD) {
    throw new EngineError(ErrorCodes.BadValue, `can't backfill array to larger than 1500000 elements`);
  }
  while (arr.length < idx) arr.push(null);
}

function cannotCreate(field: string, parentName: string, parentValue: unknown): EngineError {
  return new EngineError(ErrorCodes.PathNotViable, `Cannot create field '${field}' in element {${parentName}: ${formatBson(parentValue)}}`);
}

// ---------------------------------------------------------------------------------------------
// Positional operators

/** A compiled array filter: does this array element satisfy `arrayFilters[identifier]`? */
export type ArrayFilterTest = (element: unknown) => boolean;

/** What `expandPath` needs to resolve `$`, `$[]` and `$[identifier]`. */
export interface ExpandContext {
  readonly positional: number | undefined;
  readonly arrayFilters: ReadonlyMap<string, ArrayFilterTest>;
}

/**
 * Parses `$[identifier]` components; `undefined` for anything else.
 *
 * @example
 * arrayFilterIdentifier("$[elem]"); // "elem"
 */
export function arrayFilterIdentifier(part: string): string | undefined {
  if (part.length > 3 && part.startsWith("$[") && part.endsWith("]")) return part.slice(2, -1);
  return undefined;
}

/**
 * True when a path uses `$`, `$[]` or `$[id]`.
 *
 * @example
 * hasPositional(["a", "$[]", "b"]); // true
 */
export function hasPositional(parts: readonly string[]): boolean {
  return parts.some((p) => p === "$" || p.startsWith("$["));
}

/**
 * Expands a path containing positional components against the current document into concrete
 * paths: `$` becomes the matched query position, `$[]` every index, `$[id]` every index whose
 * element passes the array filter. Errors follow the server (BadValue 2).
 *
 * @example
 * expandPath({ a: [1, 5, 9] }, ["a", "$[x]"], { positional: undefined, arrayFilters: new Map([["x", (e) => Number(e) > 2]]) });
 * // [["a", "1"], ["a", "2"]]
 */
export function expandPath(root: unknown, parts: readonly string[], ctx: ExpandContext): string[][] {
  const out: string[][] = [];
  const walk = (value: unknown, i: number, prefix: string[]): void => {
    if (i === parts.length) {
      out.push(prefix);
      return;
    }
    const p = parts[i]!;
    if (p === "$") {
      if (ctx.positional === undefined || !Array.isArray(value)) {
        throw new EngineError(ErrorCodes.BadValue, "The positional operator did not find the match needed from the query.");
      }
      const idx = String(ctx.positional);
      walk(value[ctx.positional], i + 1, [...prefix, idx]);
      return;
    }
    if (p === "$[]" || arrayFilterIdentifier(p) !== undefined) {
      const where = prefix.join(".");
      if (value === undefined) {
        throw new EngineError(ErrorCodes.BadValue, `The path '${where}' must exist in the document in order to apply array updates.`);
      }
      if (!Array.isArray(value)) {
        throw new EngineError(ErrorCodes.BadValue, `Cannot apply array updates to non-array element ${parts[i - 1] ?? ""}: ${formatBson(value)}`);
      }
      const id = arrayFilterIdentifier(p);
      const test = id === undefined ? undefined : ctx.arrayFilters.get(id);
      for (let j = 0; j < value.length; j++) {
        if (test !== undefined && !test(value[j])) continue;
        walk(value[j], i + 1, [...prefix, String(j)]);
      }
      return;
    }
    let next: unknown;
    if (Array.isArray(value)) {
      const idx = arrayIndexOf(p);
      next = idx >= 0 ? value[idx] : undefined;
    } else if (isDocument(value)) next = getOwn(value, p);
    walk(next, i + 1, [...prefix, p]);
  };
  walk(root, 0, []);
  return out;
}
