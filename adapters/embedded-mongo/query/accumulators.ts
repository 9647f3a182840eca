import { Double, Int32, Long } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { equalityKey } from "./bson-order.js";
import type { StringComparator } from "./bson-order.js";
import { bsonTypeName } from "./bson-type.js";
import { isDocument } from "./document-path.js";
import { avgValues, minMaxValues, stdDevValues } from "./expression-operators.js";
import { aggCompare, compileEv } from "./expression.js";
import type { EvalCtx, Ev } from "./expression.js";
import { add, numericKind, toDouble } from "./numeric.js";
import { compileSort } from "./sort.js";
import type { Collation } from "./types.js";

/**
 * One running `$group` accumulator: fed each document of a group, then asked for the result
 * (`undefined` leaves the field out).
 *
 * @example
 * const make = compileAccumulator("total", { $sum: "$n" }, undefined, undefined);
 * const acc = make(); acc.add(ctx1); acc.add(ctx2); acc.result();
 */
export interface Accumulator {
  add(c: EvalCtx): void;
  result(): unknown;
}

/**
 * Compiles one `$group` field (`{<name>: {<$accumulator>: <expression>}}`) into an accumulator
 * factory. Supports `$sum`, `$avg`, `$min`, `$max`, `$first`, `$last`, `$push`, `$addToSet`, `$count`,
 * `$mergeObjects`, `$stdDevPop`, `$stdDevSamp`, `$top`, `$bottom`, `$topN`, `$bottomN`, `$firstN`,
 * `$lastN`, `$minN`, `$maxN`, `$median` and `$percentile`. Unknown operators throw 15952.
 *
 * @example
 * compileAccumulator("items", { $push: "$sku" }, undefined, undefined);
 */
export function compileAccumulator(field: string, spec: unknown, collation: Collation | undefined, cmp: StringComparator | undefined): () => Accumulator {
  if (!isDocument(spec) || Object.keys(spec).length !== 1) {
    throw new EngineError(40234, `The field '${field}' must be an accumulator object`);
  }
  const op = Object.keys(spec)[0]!;
  const arg = spec[op];
  const ev = (e: unknown): Ev => compileEv(e, { collation });
  switch (op) {
    case "$sum": {
      const e = ev(arg);
      return () => {
        let total: unknown = new Int32(0);
        return {
          add: (c) => {
            const v = e(c);
            if (numericKind(v) !== undefined) total = add(total, v, "double");
          },
          result: () => total,
        };
      };
    }
    case "$count": {
      if (!isDocument(arg) || Object.keys(arg).length !== 0) throw new EngineError(ErrorCodes.TypeMismatch, "$count takes no arguments, i.e. $count:{}");
      return () => {
        let n = 0;
        return { add: () => void n++, result: () => (n <= 2147483647 ? new Int32(n) : Long.fromNumber(n)) };
      };
    }
    case "$avg":
    case "$stdDevPop":
    case "$stdDevSamp": {
      const e = ev(arg);
      return () => {
        const values: unknown[] = [];
        return {
          add: (c) => {
            const v = e(c);
            if (numericKind(v) !== undefined) values.push(v);
          },
          result: () => (op === "$avg" ? avgValues(values) : stdDevValues(values, op === "$stdDevSamp")),
        };
      };
    }
    case "$min":
    case "$max": {
      const e = ev(arg);
      const which = op === "$min" ? "min" : "max";
      return () => {
        let best: unknown = undefined;
        return {
          add: (c) => {
            const v = e(c);
            if (v === null || v === undefined) return;
            best = best === undefined ? v : minMaxValues([best, v], which, cmp);
          },
          result: () => (best === undefined ? null : best),
        };
      };
    }
    case "$first":
    case "$last": {
      const e = ev(arg);
      return () => {
        let seen = false;
        let value: unknown = null;
        return {
          add: (c) => {
            if (op === "$first" && seen) return;
            seen = true;
            const v = e(c);
            value = v === undefined ? null : v;
          },
          result: () => value,
        };
      };
    }
    case "$push": {
      const e = ev(arg);
      return () => {
        const out: unknown[] = [];
        return {
          add: (c) => {
            const v = e(c);
            if (v !== undefined) out.push(v);
          },
          result: () => out,
        };
      };
    }
    case "$addToSet": {
      const e = ev(arg);
      return () => {
        const seen = new Set<string>();
        const out: unknown[] = [];
        return {
          add: (c) => {
            const v = e(c);
            if (v === undefined) return;
            const k = equalityKey(v);
            if (seen.has(k)) return;
            seen.add(k);
            out.push(v);
          },
          result: () => out,
        };
      };
    }
    case "$mergeObjects": {
      const e = ev(arg);
      return () => {
        const out: Record<string, unknown> = {};
        return {
          add: (c) => {
            const v = e(c);
            if (v === null || v === undefined) return;
            if (!isDocument(v)) throw new EngineError(40400, `$mergeObjects requires object inputs, but input is of type ${bsonTypeName(v)}`);
            Object.assign(out, v);
          },
          result: () => out,
        };
      };
    }
    case "$top":
    case "$bottom":
    case "$topN":
    case "$bottomN":
      return topBottom(op, arg, collation);
    case "$firstN":
    case "$lastN":
    case "$minN":
    case "$maxN":
      return nAccumulator(op, arg, collation, cmp);
    case "$median":
    case "$percentile":
      return percentile(op, arg, collation);
    case "$accumulator":
      throw new EngineError(ErrorCodes.BadValue, "$accumulator is not supported by the embedded engine (server-side JavaScript is disabled)");
    default:
      throw new EngineError(15952, `unknown group operator '${op}'`);
  }
}

function positiveN(op: string, v: unknown): number {
  const n = toDouble(v);
  if (numericKind(v) === undefined || !Number.isInteger(n) || n < 1) throw new EngineError(5787908, `Value for 'n' must be a positive integer in ${op}`);
  return n;
}

function topBottom(op: string, arg: unknown, collation: Collation | undefined): () => Accumulator {
  const many = op === "$topN" || op === "$bottomN";
  if (!isDocument(arg) || !isDocument(arg.sortBy) || !("output" in arg) || (many && !("n" in arg))) {
    throw new EngineError(5788003, `${op} requires 'sortBy', 'output'${many ? " and 'n'" : ""}`);
  }
  const sort = compileSort(arg.sortBy, collation);
  const output = compileEv(arg.output, { collation });
  const nEv = many ? compileEv(arg.n, { collation }) : undefined;
  const bottom = op === "$bottom" || op === "$bottomN";
  return () => {
    const items: { key: unknown[]; v: unknown; i: number }[] = [];
    let n = 1;
    return {
      add: (c) => {
        if (nEv !== undefined && items.length === 0) n = positiveN(op, nEv(c));
        const v = output(c);
        items.push({ key: sort.keyOf(isDocument(c.current) ? c.current : {}), v: v === undefined ? null : v, i: items.length });
      },
      result: () => {
        items.sort((a, b) => sort.compareKeys(a.key, b.key) || a.i - b.i);
        const picked = bottom ? items.slice(Math.max(0, items.length - n)) : items.slice(0, n);
        return many ? picked.map((x) => x.v) : (picked[0]?.v ?? null);
      },
    };
  };
}

function nAccumulator(op: string, arg: unknown, collation: Collation | undefined, cmp: StringComparator | undefined): () => Accumulator {
  if (!isDocument(arg) || !("input" in arg) || !("n" in arg)) throw new EngineError(5787900, `${op} requires 'input' and 'n'`);
  const input = compileEv(arg.input, { collation });
  const nEv = compileEv(arg.n, { collation });
  return () => {
    const values: unknown[] = [];
    let n = 0;
    return {
      add: (c) => {
        if (n === 0) n = positiveN(op, nEv(c));
        const v = input(c);
        if ((op === "$minN" || op === "$maxN") && (v === null || v === undefined)) return;
        values.push(v === undefined ? null : v);
      },
      result: () => {
        if (op === "$firstN") return values.slice(0, n);
        if (op === "$lastN") return values.slice(Math.max(0, values.length - n));
        const dir = op === "$minN" ? 1 : -1;
        return values.sort((a, b) => dir * aggCompare(a, b, cmp)).slice(0, n);
      },
    };
  };
}

function percentile(op: string, arg: unknown, collation: Collation | undefined): () => Accumulator {
  if (!isDocument(arg) || !("input" in arg)) throw new EngineError(7436100, `${op} requires 'input'`);
  const input = compileEv(arg.input, { collation });
  const ps = op === "$median" ? [0.5] : Array.isArray(arg.p) ? arg.p.map((x) => toDouble(x)) : undefined;
  if (ps === undefined || ps.some((p) => !(p >= 0 && p <= 1))) throw new EngineError(7750301, "$percentile 'p' must be an array of numbers in [0.0, 1.0]");
  return () => {
    const xs: number[] = [];
    return {
      add: (c) => {
        const v = input(c);
        if (numericKind(v) !== undefined) xs.push(toDouble(v));
      },
      result: () => {
        xs.sort((a, b) => a - b);
        // Discrete (nearest-rank) percentile: what the server's methods return for small inputs.
        const at = (p: number) => (xs.length === 0 ? null : new Double(xs[Math.max(0, Math.ceil(p * xs.length) - 1)]!));
        return op === "$median" ? at(0.5) : ps.map(at);
      },
    };
  };
}
