import { BSONRegExp, Decimal128, Double, Int32, Long } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { equalityKey } from "./bson-order.js";
import { bsonTypeName } from "./bson-type.js";
import { convertTarget, convertValue, valueToString } from "./convert.js";
import { DATE_OPERATORS } from "./date-operators.js";
import { isDocument } from "./document-path.js";
import { aggCompare, isTruthy, validateVariableName, withVars } from "./expression-runtime.js";
import type { EvalCtx, Ev, ExprEnv, OperatorCompiler } from "./expression-types.js";
import { add, decimalFromParts, decimalParts, divide, multiply, negate, numericKind, subtract, toDouble, toInt64 } from "./numeric.js";
import type { DecimalParts } from "./numeric.js";
import { toJsRegExp } from "./regex.js";
import { compileSort } from "./sort.js";
import { STRING_OPERATORS } from "./string-operators.js";

// ---------------------------------------------------------------------------------------------
// Argument helpers

function argList(spec: unknown, env: ExprEnv): Ev[] {
  return Array.isArray(spec) ? spec.map((s) => env.compile(s)) : [env.compile(spec)];
}

function arity(name: string, evs: Ev[], min: number, max = min): Ev[] {
  if (evs.length < min || evs.length > max) {
    const what = min === max ? `exactly ${min}` : evs.length < min ? `at least ${min}` : `at most ${max}`;
    throw new EngineError(16020, `Expression ${name} takes ${what} arguments. ${evs.length} were passed in.`);
  }
  return evs;
}

function nullish(v: unknown): boolean {
  return v === null || v === undefined;
}

/**
 * An operator of exactly one argument whose null or missing value gives null, MongoDB's rule for
 * most operators; `fn` sees only present values.
 */
function nullPropagatingUnary(name: string, spec: unknown, env: ExprEnv, fn: (v: unknown) => unknown): Ev {
  const [a] = arity(name, argList(spec, env), 1) as [Ev];
  return (c) => {
    const v = a(c);
    return nullish(v) ? null : fn(v);
  };
}

/** {@link nullPropagatingUnary} for operators of exactly two arguments: null if either is. */
function nullPropagatingBinary(name: string, spec: unknown, env: ExprEnv, fn: (x: unknown, y: unknown) => unknown): Ev {
  const [a, b] = arity(name, argList(spec, env), 2) as [Ev, Ev];
  return (c) => {
    const x = a(c);
    const y = b(c);
    return nullish(x) || nullish(y) ? null : fn(x, y);
  };
}

function objectArgs(name: string, spec: unknown, allowed: readonly string[], required: readonly string[] = []): Record<string, unknown> {
  if (!isDocument(spec)) throw new EngineError(ErrorCodes.FailedToParse, `${name} only supports an object as its argument`);
  for (const k of Object.keys(spec)) {
    if (!allowed.includes(k)) throw new EngineError(ErrorCodes.FailedToParse, `${name} found an unknown argument: ${k}`);
  }
  for (const r of required) {
    if (!(r in spec)) throw new EngineError(ErrorCodes.FailedToParse, `Missing '${r}' parameter to ${name}`);
  }
  return spec;
}

function typeError(code: number, msg: string): never {
  throw new EngineError(code, msg);
}

// ---------------------------------------------------------------------------------------------
// Arithmetic

const isNum = (v: unknown) => numericKind(v) !== undefined;

function compileAdd(spec: unknown, env: ExprEnv): Ev {
  const evs = argList(spec, env);
  return (c) => {
    let total: unknown = new Int32(0);
    let date: Date | undefined;
    for (const ev of evs) {
      const v = ev(c);
      if (nullish(v)) return null;
      if (v instanceof Date) {
        if (date !== undefined) typeError(16612, "only one date allowed in an $add expression");
        date = v;
        continue;
      }
      if (!isNum(v)) typeError(16554, `$add only supports numeric or date types, not ${bsonTypeName(v)}`);
      total = add(total, v, "double");
    }
    if (date !== undefined) return new Date(date.getTime() + Math.round(toDouble(total)));
    return total;
  };
}

function compileSubtract(spec: unknown, env: ExprEnv, name: string): Ev {
  return nullPropagatingBinary(name, spec, env, (x, y) => {
    if (x instanceof Date) {
      if (y instanceof Date) return Long.fromNumber(x.getTime() - y.getTime());
      if (isNum(y)) return new Date(x.getTime() - Math.round(toDouble(y)));
    } else if (isNum(x) && isNum(y)) return subtract(x, y, "double");
    if (y instanceof Date) typeError(16556, `can't $subtract a date from a ${bsonTypeName(x)}`);
    return typeError(16556, `can't $subtract ${bsonTypeName(y)} from ${bsonTypeName(x)}`);
  });
}

function compileMultiply(spec: unknown, env: ExprEnv): Ev {
  const evs = argList(spec, env);
  return (c) => {
    let total: unknown = new Int32(1);
    for (const ev of evs) {
      const v = ev(c);
      if (nullish(v)) return null;
      if (!isNum(v)) typeError(16555, `$multiply only supports numeric types, not ${bsonTypeName(v)}`);
      total = multiply(total, v, "double");
    }
    return total;
  };
}

function compileDivide(spec: unknown, env: ExprEnv, name: string): Ev {
  return nullPropagatingBinary(name, spec, env, (x, y) => {
    if (!isNum(x) || !isNum(y)) typeError(16609, `$divide only supports numeric types, not ${bsonTypeName(x)} and ${bsonTypeName(y)}`);
    try {
      return divide(x, y);
    } catch {
      return typeError(16608, "can't $divide by zero");
    }
  });
}

/**
 * The decimal digits of a finite double's shortest representation, so that 2.675 is handled as the
 * decimal the user wrote, not as the binary fraction just below it.
 */
function shortestDecimalParts(d: number): DecimalParts {
  const s = String(d);
  return decimalParts(Decimal128.fromString(s.includes("e") ? d.toPrecision(17) : s));
}

/** Exact rational of a decimal-compatible value, as num / 10^scale. */
function toDecimalRational(v: unknown): { num: bigint; scale: number } | undefined {
  const k = numericKind(v);
  let p: DecimalParts;
  if (k === "decimal") p = decimalParts(v as Decimal128);
  else if (k === "double") {
    const d = toDouble(v);
    if (!Number.isFinite(d)) return undefined;
    p = shortestDecimalParts(d);
  } else p = { neg: false, coef: toInt64(v) ?? 0n, exp: 0 };
  if (p.special !== undefined) return undefined;
  const signed = p.neg ? -p.coef : p.coef;
  return p.exp >= 0 ? { num: signed * 10n ** BigInt(p.exp), scale: 0 } : { num: signed, scale: -p.exp };
}

function compileMod(spec: unknown, env: ExprEnv, name: string): Ev {
  return nullPropagatingBinary(name, spec, env, (x, y) => {
    const kx = numericKind(x);
    const ky = numericKind(y);
    if (kx === undefined || ky === undefined) typeError(16611, `$mod only supports numeric types, not ${bsonTypeName(x)} and ${bsonTypeName(y)}`);
    if (toDouble(y) === 0 && ky !== "decimal") typeError(16610, "can't $mod by zero");
    if (kx === "decimal" || ky === "decimal") {
      const rx = toDecimalRational(x);
      const ry = toDecimalRational(y);
      if (rx === undefined || ry === undefined) return Decimal128.fromString("NaN");
      if (ry.num === 0n) typeError(16610, "can't $mod by zero");
      const scale = Math.max(rx.scale, ry.scale);
      const nx = rx.num * 10n ** BigInt(scale - rx.scale);
      const ny = ry.num * 10n ** BigInt(scale - ry.scale);
      const r = nx % ny;
      return decimalFromParts({ neg: r < 0n || (r === 0n && nx < 0n), coef: r < 0n ? -r : r, exp: -scale });
    }
    if (kx === "double" || ky === "double") return new Double(toDouble(x) % toDouble(y));
    const r = (toInt64(x) ?? 0n) % (toInt64(y) ?? 1n);
    return kx === "long" || ky === "long" ? Long.fromBigInt(r) : new Int32(Number(r));
  });
}

function unaryNumeric(name: string, spec: unknown, env: ExprEnv, fn: (v: unknown) => unknown): Ev {
  return nullPropagatingUnary(name, spec, env, (v) => {
    if (!isNum(v)) typeError(28765, `${name} only supports numeric types, not ${bsonTypeName(v)}`);
    return fn(v);
  });
}

function compileAbs(spec: unknown, env: ExprEnv, name: string): Ev {
  return unaryNumeric(name, spec, env, (v) => {
    const k = numericKind(v)!;
    if (k === "long" && (v as Long).toBigInt() === -(2n ** 63n)) typeError(28680, "can't take $abs of long long min");
    if (k === "decimal") {
      const p = decimalParts(v as Decimal128);
      return p.neg && p.special !== "NaN" ? negate(v) : v;
    }
    return toDouble(v) < 0 || Object.is(toDouble(v), -0) ? negate(v) : k === "int" ? new Int32(toDouble(v)) : v;
  });
}

/** Rounds decimal parts to `place` digits after the point, half to even (`$round`) or toward zero (`$trunc`). */
function roundParts(p: DecimalParts, place: number, mode: "even" | "trunc" | "floor" | "ceil"): DecimalParts {
  if (p.special !== undefined || p.exp >= -place) return p;
  const drop = -place - p.exp;
  const div = 10n ** BigInt(drop);
  let q = p.coef / div;
  const r = p.coef % div;
  if (r !== 0n) {
    if (mode === "even") {
      const half = div / 2n;
      if (r > half || (r === half && q % 2n === 1n)) q += 1n;
    } else if ((mode === "floor" && p.neg) || (mode === "ceil" && !p.neg)) q += 1n;
  }
  return { neg: p.neg, coef: q, exp: p.exp + drop };
}

function roundNumber(v: unknown, place: number, mode: "even" | "trunc" | "floor" | "ceil"): unknown {
  const k = numericKind(v)!;
  if (k === "decimal") return decimalFromParts(roundParts(decimalParts(v as Decimal128), place, mode));
  if (k === "double") {
    const d = toDouble(v);
    if (!Number.isFinite(d)) return new Double(d);
    const p = shortestDecimalParts(d);
    const r = roundParts(p, place, mode);
    const out = Number(`${r.neg ? "-" : ""}${r.coef}e${r.exp}`);
    return new Double(out === 0 && (p.neg || d < 0) ? -0 : out);
  }
  if (place >= 0) return k === "int" ? new Int32(toDouble(v)) : v;
  const n = toInt64(v)!;
  const r = roundParts({ neg: n < 0n, coef: n < 0n ? -n : n, exp: 0 }, place, mode);
  const out = (r.neg ? -r.coef : r.coef) * 10n ** BigInt(r.exp);
  if (k === "int" && out >= -2147483648n && out <= 2147483647n) return new Int32(Number(out));
  return Long.fromBigInt(out);
}

function compileRounding(mode: "even" | "trunc"): OperatorCompiler {
  return (spec, env, name) => {
    const evs = arity(name, argList(spec, env), 1, 2);
    return (c) => {
      const v = evs[0]!(c);
      const placeV = evs.length > 1 ? evs[1]!(c) : new Int32(0);
      if (nullish(v) || nullish(placeV)) return null;
      if (!isNum(v)) typeError(51081, `${name} only supports numeric types, not ${bsonTypeName(v)}`);
      const place = toDouble(placeV);
      if (!Number.isInteger(place) || place < -20 || place > 100) typeError(51083, `cannot apply ${name} with precision value ${place} value must be in [-20, 100]`);
      return roundNumber(v, place, mode);
    };
  };
}

function compileFloorCeil(mode: "floor" | "ceil"): OperatorCompiler {
  return (spec, env, name) => unaryNumeric(name, spec, env, (v) => roundNumber(v, 0, mode));
}

function doubleOnly(name: string, v: unknown): number {
  if (numericKind(v) === "decimal") {
    throw new EngineError(ErrorCodes.BadValue, `${name} on Decimal128 values is not supported by the embedded engine (it cannot compute it to 34 digits)`);
  }
  return toDouble(v);
}

function compileSqrt(spec: unknown, env: ExprEnv, name: string): Ev {
  return unaryNumeric(name, spec, env, (v) => {
    const d = doubleOnly(name, v);
    if (d < 0) typeError(28714, "$sqrt's argument must be greater than or equal to 0");
    return new Double(Math.sqrt(d));
  });
}

function compileExpLog(fn: (d: number) => number, positive: boolean): OperatorCompiler {
  return (spec, env, name) =>
    unaryNumeric(name, spec, env, (v) => {
      const d = doubleOnly(name, v);
      if (positive && !(d > 0) && !Number.isNaN(d)) typeError(28766, `${name}'s argument must be a positive number, but is ${d}`);
      return new Double(fn(d));
    });
}

function compileLog(spec: unknown, env: ExprEnv, name: string): Ev {
  return nullPropagatingBinary(name, spec, env, (x, y) => {
    if (!isNum(x) || !isNum(y)) typeError(28756, `$log's argument must be numeric, not ${bsonTypeName(isNum(x) ? y : x)}`);
    const dx = doubleOnly(name, x);
    const dy = doubleOnly(name, y);
    if (!(dx > 0)) typeError(28758, `$log's argument must be a positive number, but is ${dx}`);
    if (!(dy > 0) || dy === 1) typeError(28759, `$log's base must be a positive number not equal to 1, but is ${dy}`);
    return new Double(Math.log(dx) / Math.log(dy));
  });
}

function compilePow(spec: unknown, env: ExprEnv, name: string): Ev {
  return nullPropagatingBinary(name, spec, env, (base, exp) => {
    const kb = numericKind(base);
    const ke = numericKind(exp);
    if (kb === undefined || ke === undefined) typeError(28762, `$pow's base must be numeric, not ${bsonTypeName(base)}`);
    if (toDouble(base) === 0 && toDouble(exp) < 0) typeError(28764, "$pow cannot take a base of 0 and a negative exponent");
    if (kb === "decimal" || ke === "decimal") {
      const e = toInt64(exp);
      if (e === undefined || e < 0n || e > 1000n) return doubleOnly(name, kb === "decimal" ? base : exp);
      let acc: unknown = Decimal128.fromString("1");
      for (let i = 0n; i < e; i++) acc = multiply(acc, base);
      return acc;
    }
    if ((kb === "int" || kb === "long") && (ke === "int" || ke === "long")) {
      const e = toInt64(exp)!;
      const bb = toInt64(base)!;
      if (e >= 0n && e < 4096n) {
        const r = bb ** e;
        if (kb === "int" && ke === "int" && r >= -2147483648n && r <= 2147483647n) return new Int32(Number(r));
        if (r >= -(2n ** 63n) && r < 2n ** 63n) return Long.fromBigInt(r);
      }
    }
    return new Double(Math.pow(toDouble(base), toDouble(exp)));
  });
}

// ---------------------------------------------------------------------------------------------
// Comparison, boolean, conditional

function compileComparison(name: string): OperatorCompiler {
  return (spec, env) => {
    const [a, b] = arity(name, argList(spec, env), 2) as [Ev, Ev];
    const cmp = env.cmp;
    return (c) => {
      const r = aggCompare(a(c), b(c), cmp);
      switch (name) {
        case "$eq":
          return r === 0;
        case "$ne":
          return r !== 0;
        case "$gt":
          return r > 0;
        case "$gte":
          return r >= 0;
        case "$lt":
          return r < 0;
        case "$lte":
          return r <= 0;
        default:
          return new Int32(r);
      }
    };
  };
}

function compileAnd(spec: unknown, env: ExprEnv): Ev {
  const evs = argList(spec, env);
  return (c) => {
    for (const ev of evs) if (!isTruthy(ev(c))) return false;
    return true;
  };
}

function compileOr(spec: unknown, env: ExprEnv): Ev {
  const evs = argList(spec, env);
  return (c) => {
    for (const ev of evs) if (isTruthy(ev(c))) return true;
    return false;
  };
}

function compileNot(spec: unknown, env: ExprEnv, name: string): Ev {
  const [a] = arity(name, argList(spec, env), 1) as [Ev];
  return (c) => !isTruthy(a(c));
}

function compileCond(spec: unknown, env: ExprEnv, name: string): Ev {
  let parts: [unknown, unknown, unknown];
  if (Array.isArray(spec)) {
    if (spec.length !== 3) typeError(16020, `Expression $cond takes exactly 3 arguments. ${spec.length} were passed in.`);
    parts = spec as [unknown, unknown, unknown];
  } else {
    const o = objectArgs(name, spec, ["if", "then", "else"]);
    if (!("if" in o)) typeError(17080, "Missing 'if' parameter to $cond");
    if (!("then" in o)) typeError(17081, "Missing 'then' parameter to $cond");
    if (!("else" in o)) typeError(17082, "Missing 'else' parameter to $cond");
    parts = [o.if, o.then, o.else];
  }
  const [i, t, e] = parts.map((p) => env.compile(p)) as [Ev, Ev, Ev];
  return (c) => (isTruthy(i(c)) ? t(c) : e(c));
}

function compileIfNull(spec: unknown, env: ExprEnv, name: string): Ev {
  const evs = arity(name, argList(spec, env), 2, Number.MAX_SAFE_INTEGER);
  return (c) => {
    for (let i = 0; i < evs.length - 1; i++) {
      const v = evs[i]!(c);
      if (!nullish(v)) return v;
    }
    return evs[evs.length - 1]!(c);
  };
}

function compileSwitch(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["branches", "default"]);
  if (!Array.isArray(o.branches)) typeError(40061, "$switch expected an array for 'branches'");
  const branches = o.branches.map((b) => {
    if (!isDocument(b)) typeError(40061, "$switch expected each branch to be an object");
    if (!("case" in b)) typeError(40064, "$switch requires each branch have a 'case' expression");
    if (!("then" in b)) typeError(40065, "$switch requires each branch have a 'then' expression");
    return [env.compile(b.case), env.compile(b.then)] as const;
  });
  const def = "default" in o ? env.compile(o.default) : undefined;
  return (c) => {
    for (const [cs, then] of branches) if (isTruthy(cs(c))) return then(c);
    if (def === undefined) typeError(40066, "$switch could not find a matching branch for an input, and no default was specified.");
    return def(c);
  };
}

// ---------------------------------------------------------------------------------------------
// Variables and scoping operators

function compileLet(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["vars", "in"], ["vars", "in"]);
  if (!isDocument(o.vars)) typeError(ErrorCodes.FailedToParse, "invalid parameter: expected an object (vars)");
  const vars = Object.keys(o.vars).map((k) => {
    validateVariableName(k);
    return [k, env.compile((o.vars as Record<string, unknown>)[k])] as const;
  });
  const body = env.compile(o.in);
  return (c) => {
    const bound: Record<string, unknown> = {};
    for (const [k, ev] of vars) bound[k] = ev(c);
    return body(withVars(c, bound));
  };
}

function asName(v: unknown, fallback: string): string {
  if (v === undefined) return fallback;
  if (typeof v !== "string") typeError(ErrorCodes.FailedToParse, "'as' must be a string");
  validateVariableName(v);
  return v;
}

function compileMap(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["input", "as", "in"], ["input", "in"]);
  const input = env.compile(o.input);
  const as = asName(o.as, "this");
  const body = env.compile(o.in);
  return (c) => {
    const arr = input(c);
    if (nullish(arr)) return null;
    if (!Array.isArray(arr)) typeError(16883, `input to $map must be an array not ${bsonTypeName(arr)}`);
    return arr.map((e) => {
      const v = body(withVars(c, { [as]: e }));
      return v === undefined ? null : v;
    });
  };
}

function compileFilter(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["input", "as", "cond", "limit"], ["input", "cond"]);
  const input = env.compile(o.input);
  const as = asName(o.as, "this");
  const cond = env.compile(o.cond);
  const limit = "limit" in o ? env.compile(o.limit) : undefined;
  return (c) => {
    const arr = input(c);
    if (nullish(arr)) return null;
    if (!Array.isArray(arr)) typeError(28651, `input to $filter must be an array not ${bsonTypeName(arr)}`);
    let max = Infinity;
    if (limit !== undefined) {
      const l = limit(c);
      if (!nullish(l)) {
        const n = toDouble(l);
        if (!isNum(l) || !Number.isInteger(n) || n < 1) typeError(327391, `$filter: limit must be a positive integer`);
        max = n;
      }
    }
    const out: unknown[] = [];
    for (const e of arr) {
      if (out.length >= max) break;
      if (isTruthy(cond(withVars(c, { [as]: e })))) out.push(e);
    }
    return out;
  };
}

function compileReduce(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["input", "initialValue", "in"], ["input", "initialValue", "in"]);
  const input = env.compile(o.input);
  const init = env.compile(o.initialValue);
  const body = env.compile(o.in);
  return (c) => {
    const arr = input(c);
    if (nullish(arr)) return null;
    if (!Array.isArray(arr)) typeError(40080, `$reduce requires that 'input' be an array, found: ${bsonTypeName(arr)}`);
    let acc = init(c);
    for (const e of arr) acc = body(withVars(c, { value: acc, this: e }));
    return acc;
  };
}

// ---------------------------------------------------------------------------------------------
// Arrays

function requireArray(name: string, v: unknown, code: number): unknown[] {
  if (!Array.isArray(v)) typeError(code, `${name}'s argument must be an array, but is ${bsonTypeName(v)}`);
  return v;
}

function integral(name: string, v: unknown, code: number): number {
  const d = toDouble(v);
  if (!isNum(v) || !Number.isInteger(d)) typeError(code, `${name}'s second argument must be an integral value, but is ${bsonTypeName(v)}`);
  return d;
}

function compileArrayElemAt(spec: unknown, env: ExprEnv, name: string): Ev {
  return nullPropagatingBinary(name, spec, env, (arr, idx) => {
    if (!Array.isArray(arr)) typeError(28689, `$arrayElemAt's first argument must be an array, but is ${bsonTypeName(arr)}`);
    const i = integral(name, idx, 28691);
    const at = i < 0 ? arr.length + i : i;
    return at >= 0 && at < arr.length ? arr[at] : undefined;
  });
}

function compileFirstLast(which: "first" | "last"): OperatorCompiler {
  return (spec, env, name) =>
    nullPropagatingUnary(name, spec, env, (v) => {
      const arr = requireArray(name, v, 28689);
      if (arr.length === 0) return undefined;
      return which === "first" ? arr[0] : arr[arr.length - 1];
    });
}

function compileSize(spec: unknown, env: ExprEnv, name: string): Ev {
  const [a] = arity(name, argList(spec, env), 1) as [Ev];
  return (c) => {
    const v = a(c);
    if (!Array.isArray(v)) typeError(17124, `The argument to $size must be an array. Type of argument was: ${bsonTypeName(v)}`);
    return new Int32(v.length);
  };
}

function compileIsArray(spec: unknown, env: ExprEnv, name: string): Ev {
  const [a] = arity(name, argList(spec, env), 1) as [Ev];
  return (c) => Array.isArray(a(c));
}

function compileIn(spec: unknown, env: ExprEnv, name: string): Ev {
  const [a, b] = arity(name, argList(spec, env), 2) as [Ev, Ev];
  const cmp = env.cmp;
  return (c) => {
    const v = a(c);
    const arr = b(c);
    if (!Array.isArray(arr)) typeError(40081, `$in requires an array as a second argument, found: ${bsonTypeName(arr)}`);
    return arr.some((e) => aggCompare(e, v, cmp) === 0);
  };
}

function compileIndexOfArray(spec: unknown, env: ExprEnv, name: string): Ev {
  const evs = arity(name, argList(spec, env), 2, 4);
  const cmp = env.cmp;
  return (c) => {
    const arr = evs[0]!(c);
    if (nullish(arr)) return null;
    if (!Array.isArray(arr)) typeError(40090, `$indexOfArray requires an array as a first argument, found: ${bsonTypeName(arr)}`);
    const search = evs[1]!(c);
    const start = evs.length > 2 ? integral(name, evs[2]!(c), 40096) : 0;
    const end = evs.length > 3 ? Math.min(integral(name, evs[3]!(c), 40096), arr.length) : arr.length;
    if (start < 0 || end < 0) typeError(40097, `${name} requires non-negative indexes`);
    for (let i = start; i < end; i++) if (aggCompare(arr[i], search, cmp) === 0) return new Int32(i);
    return new Int32(-1);
  };
}

function compileConcatArrays(spec: unknown, env: ExprEnv): Ev {
  const evs = argList(spec, env);
  return (c) => {
    const out: unknown[] = [];
    for (const ev of evs) {
      const v = ev(c);
      if (nullish(v)) return null;
      if (!Array.isArray(v)) typeError(28664, `$concatArrays only supports arrays, not ${bsonTypeName(v)}`);
      out.push(...v);
    }
    return out;
  };
}

function compileSlice(spec: unknown, env: ExprEnv, name: string): Ev {
  const evs = arity(name, argList(spec, env), 2, 3);
  return (c) => {
    const vals = evs.map((e) => e(c));
    if (vals.some(nullish)) return null;
    const arr = vals[0];
    if (!Array.isArray(arr)) typeError(28724, `First argument to $slice must be an array, but is of type: ${bsonTypeName(arr)}`);
    if (vals.length === 2) {
      const n = integral(name, vals[1], 28725);
      return n >= 0 ? arr.slice(0, n) : arr.slice(Math.max(0, arr.length + n));
    }
    const pos = integral(name, vals[1], 28725);
    const n = integral(name, vals[2], 28726);
    if (n <= 0) typeError(28729, `Third argument to $slice must be positive: ${n}`);
    const start = pos >= 0 ? Math.min(pos, arr.length) : Math.max(0, arr.length + pos);
    return arr.slice(start, start + n);
  };
}

function compileReverseArray(spec: unknown, env: ExprEnv, name: string): Ev {
  return nullPropagatingUnary(name, spec, env, (v) => {
    if (!Array.isArray(v)) typeError(34435, `The argument to $reverseArray must be an array, but was of type: ${bsonTypeName(v)}`);
    return v.slice().reverse();
  });
}

function compileRange(spec: unknown, env: ExprEnv, name: string): Ev {
  const evs = arity(name, argList(spec, env), 2, 3);
  return (c) => {
    const start = integral(name, evs[0]!(c), 34443);
    const end = integral(name, evs[1]!(c), 34444);
    const step = evs.length > 2 ? integral(name, evs[2]!(c), 34445) : 1;
    if (step === 0) typeError(34449, "$range requires a non-zero step value");
    const out: Int32[] = [];
    for (let i = start; step > 0 ? i < end : i > end; i += step) out.push(new Int32(i));
    return out;
  };
}

function compileArrayToObject(spec: unknown, env: ExprEnv, name: string): Ev {
  return nullPropagatingUnary(name, spec, env, (v) => {
    if (!Array.isArray(v)) typeError(40386, `$arrayToObject requires an array input, found: ${bsonTypeName(v)}`);
    const out: Record<string, unknown> = {};
    for (const e of v) {
      let k: unknown;
      let val: unknown;
      if (Array.isArray(e)) {
        if (e.length !== 2) typeError(40397, "$arrayToObject requires an array of size 2 arrays");
        [k, val] = e;
      } else if (isDocument(e)) {
        if (Object.keys(e).length !== 2 || !("k" in e) || !("v" in e)) typeError(40392, "$arrayToObject requires an object keys of 'k' and 'v'");
        k = e.k;
        val = e.v;
      } else typeError(40398, `Unrecognised input type format for $arrayToObject: ${bsonTypeName(e)}`);
      if (typeof k !== "string") typeError(40395, `$arrayToObject requires an array of key-value pairs, where the key must be of type string. Found key type: ${bsonTypeName(k)}`);
      out[k] = val;
    }
    return out;
  });
}

function compileObjectToArray(spec: unknown, env: ExprEnv, name: string): Ev {
  return nullPropagatingUnary(name, spec, env, (v) => {
    if (!isDocument(v)) typeError(40390, `$objectToArray requires a document input, found: ${bsonTypeName(v)}`);
    return Object.keys(v).map((k) => ({ k, v: v[k] }));
  });
}

function compileZip(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["inputs", "useLongestLength", "defaults"], ["inputs"]);
  if (!Array.isArray(o.inputs)) typeError(34460, "inputs must be an array of expressions");
  const inputs = o.inputs.map((i) => env.compile(i));
  const longest = o.useLongestLength === true;
  const defaults = "defaults" in o ? env.compile(o.defaults) : undefined;
  return (c) => {
    const arrays: unknown[][] = [];
    for (const i of inputs) {
      const v = i(c);
      if (nullish(v)) return null;
      if (!Array.isArray(v)) typeError(34468, `$zip found a non-array expression in input: ${bsonTypeName(v)}`);
      arrays.push(v);
    }
    const defs = defaults === undefined ? [] : (defaults(c) as unknown[]);
    const n = arrays.length === 0 ? 0 : longest ? Math.max(...arrays.map((a) => a.length)) : Math.min(...arrays.map((a) => a.length));
    const out: unknown[][] = [];
    for (let i = 0; i < n; i++) out.push(arrays.map((a, j) => (i < a.length ? a[i] : (defs[j] ?? null))));
    return out;
  };
}

function compileSortArray(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["input", "sortBy"], ["input", "sortBy"]);
  const input = env.compile(o.input);
  const by = o.sortBy;
  let order: (xs: unknown[]) => unknown[];
  if (isNum(by)) {
    const dir = toDouble(by);
    if (dir !== 1 && dir !== -1) typeError(2942505, "$sortArray sortBy must be 1 or -1");
    order = (xs) => xs.map((v, i) => ({ v, i })).sort((a, b) => dir * aggCompare(a.v, b.v, env.cmp) || a.i - b.i).map((x) => x.v);
  } else if (isDocument(by)) {
    const sort = compileSort(by);
    const empty = sort.keyOf({});
    order = (xs) =>
      xs
        .map((v, i) => ({ v, i, key: isDocument(v) ? sort.keyOf(v) : empty }))
        .sort((a, b) => sort.compareKeys(a.key, b.key) || a.i - b.i)
        .map((x) => x.v);
  } else typeError(2942505, "$sortArray sortBy must be 1, -1 or a sort specification");
  return (c) => {
    const v = input(c);
    if (nullish(v)) return null;
    if (!Array.isArray(v)) typeError(2942504, `The input argument to $sortArray must be an array, but was of type: ${bsonTypeName(v)}`);
    return order(v);
  };
}

/**
 * The `{n, input}` array operators (`$firstN`, `$lastN`, `$minN`, `$maxN`): `n` must be a positive
 * integer, a null or missing `input` gives null, and `pick` chooses `count` elements of the array.
 */
function compileNOfArray(pick: (arr: unknown[], count: number, env: ExprEnv) => unknown[]): OperatorCompiler {
  return (spec, env, name) => {
    const o = objectArgs(name, spec, ["n", "input"], ["n", "input"]);
    const n = env.compile(o.n);
    const input = env.compile(o.input);
    return (c) => {
      const count = toDouble(n(c));
      if (!Number.isInteger(count) || count < 1) typeError(5787908, `Value for 'n' must be a positive integer`);
      const v = input(c);
      if (nullish(v)) return null;
      return pick(requireArray(name, v, 5788200), count, env);
    };
  };
}

function compileFirstLastN(which: "first" | "last"): OperatorCompiler {
  return compileNOfArray((arr, count) => (which === "first" ? arr.slice(0, count) : arr.slice(Math.max(0, arr.length - count))));
}

function compileMinMaxN(which: "min" | "max"): OperatorCompiler {
  const dir = which === "min" ? 1 : -1;
  // Null and missing elements are skipped, as the accumulators of the same names do.
  return compileNOfArray((arr, count, env) =>
    arr
      .filter((e) => !nullish(e))
      .sort((a, b) => dir * aggCompare(a, b, env.cmp))
      .slice(0, count),
  );
}

// ---------------------------------------------------------------------------------------------
// Accumulator-style expressions over arrays or argument lists ($sum, $avg, $min, $max, $stdDev*)

function accumulatorInputs(spec: unknown, env: ExprEnv): (c: EvalCtx) => unknown[] {
  if (Array.isArray(spec)) {
    if (spec.length === 1) {
      const only = env.compile(spec[0]);
      return (c) => {
        const v = only(c);
        return Array.isArray(v) ? v : [v];
      };
    }
    const evs = spec.map((s) => env.compile(s));
    return (c) => evs.map((e) => e(c));
  }
  const ev = env.compile(spec);
  return (c) => {
    const v = ev(c);
    return Array.isArray(v) ? v : [v];
  };
}

/**
 * `$sum` semantics shared with the `$group` accumulator: non-numeric values are ignored; the type
 * widens as needed (int overflow to long, long overflow to double, any double to double, any
 * decimal to decimal).
 *
 * @example
 * sumValues([new Int32(1), "x", new Double(0.5)]); // Double(1.5)
 */
export function sumValues(values: readonly unknown[]): unknown {
  let total: unknown = new Int32(0);
  for (const v of values) if (isNum(v)) total = add(total, v, "double");
  return total;
}

/**
 * `$avg`: the mean of the numeric values as a Double (Decimal128 if any input is decimal), null if none.
 *
 * @example
 * avgValues([new Int32(1), new Int32(2)]); // Double(1.5)
 */
export function avgValues(values: readonly unknown[]): unknown {
  let total: unknown = new Int32(0);
  let n = 0;
  let decimal = false;
  for (const v of values) {
    if (!isNum(v)) continue;
    if (numericKind(v) === "decimal") decimal = true;
    total = add(total, v, "double");
    n++;
  }
  if (n === 0) return null;
  if (decimal) return divide(total, Long.fromNumber(n));
  return new Double(toDouble(divide(total, new Int32(n))));
}

/**
 * `$min`/`$max`: BSON order (collation for strings), ignoring null and missing; null if nothing left.
 *
 * @example
 * minMaxValues([null, new Int32(3), "a"], "max", undefined); // "a"
 */
export function minMaxValues(values: readonly unknown[], which: "min" | "max", cmp: ExprEnv["cmp"]): unknown {
  let best: unknown;
  for (const v of values) {
    if (nullish(v)) continue;
    if (best === undefined) best = v;
    else {
      const r = aggCompare(v, best, cmp);
      if (which === "min" ? r < 0 : r > 0) best = v;
    }
  }
  return best === undefined ? null : best;
}

/**
 * Population or sample standard deviation of the numeric values (Double), null when undefined.
 *
 * @example
 * stdDevValues([new Int32(2), new Int32(4)], false); // Double(1)
 */
export function stdDevValues(values: readonly unknown[], sample: boolean): unknown {
  const xs = values.filter(isNum).map(toDouble);
  const n = xs.length;
  if (n === 0 || (sample && n === 1)) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const ss = xs.reduce((a, b) => a + (b - mean) * (b - mean), 0);
  return new Double(Math.sqrt(ss / (sample ? n - 1 : n)));
}

function compileAccumulatorExpr(kind: "sum" | "avg" | "min" | "max" | "stdDevPop" | "stdDevSamp"): OperatorCompiler {
  return (spec, env) => {
    const inputs = accumulatorInputs(spec, env);
    return (c) => {
      const vals = inputs(c);
      switch (kind) {
        case "sum":
          return sumValues(vals);
        case "avg":
          return avgValues(vals);
        case "min":
        case "max":
          return minMaxValues(vals, kind, env.cmp);
        case "stdDevPop":
          return stdDevValues(vals, false);
        case "stdDevSamp":
          return stdDevValues(vals, true);
      }
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Objects

function compileMergeObjects(spec: unknown, env: ExprEnv): Ev {
  const evs = argList(spec, env);
  return (c) => {
    const out: Record<string, unknown> = {};
    for (const ev of evs) {
      const v = ev(c);
      const docs = evs.length === 1 && Array.isArray(v) ? v : [v];
      for (const d of docs) {
        if (nullish(d)) continue;
        if (!isDocument(d)) typeError(40400, `$mergeObjects requires object inputs, but input ${JSON.stringify(bsonTypeName(d))} is of type ${bsonTypeName(d)}`);
        Object.assign(out, d);
      }
    }
    return out;
  };
}

function fieldNameArg(name: string, v: unknown): string {
  if (typeof v === "string") return v;
  if (isDocument(v) && typeof v.$literal === "string") return v.$literal;
  return typeError(3041704, `${name} requires 'field' to evaluate to type String, but got ${bsonTypeName(v)}`);
}

function compileGetField(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = isDocument(spec) && "field" in spec ? objectArgs(name, spec, ["field", "input"], ["field"]) : { field: spec };
  const field = fieldNameArg(name, o.field);
  const input = "input" in o ? env.compile(o.input) : (c: EvalCtx) => c.current;
  return (c) => {
    const v = input(c);
    if (nullish(v)) return null;
    if (!isDocument(v)) return undefined;
    return Object.prototype.hasOwnProperty.call(v, field) ? v[field] : undefined;
  };
}

function compileSetField(remove: boolean): OperatorCompiler {
  return (spec, env, name) => {
    const o = remove ? objectArgs(name, spec, ["field", "input"], ["field", "input"]) : objectArgs(name, spec, ["field", "input", "value"], ["field", "input", "value"]);
    const field = fieldNameArg(name, o.field);
    const input = env.compile(o.input);
    const value = remove ? () => undefined : env.compile(o.value);
    return (c) => {
      const v = input(c);
      if (nullish(v)) return null;
      if (!isDocument(v)) typeError(4161105, `${name} requires 'input' to evaluate to type Object`);
      const out = { ...v };
      const nv = value(c);
      if (nv === undefined) delete out[field];
      else out[field] = nv;
      return out;
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Types and conversions

function compileType(spec: unknown, env: ExprEnv, name: string): Ev {
  const [a] = arity(name, argList(spec, env), 1) as [Ev];
  return (c) => bsonTypeName(a(c));
}

function compileIsNumber(spec: unknown, env: ExprEnv, name: string): Ev {
  const [a] = arity(name, argList(spec, env), 1) as [Ev];
  return (c) => isNum(a(c));
}

function compileConvert(spec: unknown, env: ExprEnv, name: string): Ev {
  const o = objectArgs(name, spec, ["input", "to", "onError", "onNull", "format", "base", "byteOrder"], ["input", "to"]);
  const input = env.compile(o.input);
  const to = env.compile(o.to);
  const onError = "onError" in o ? env.compile(o.onError) : undefined;
  const onNull = "onNull" in o ? env.compile(o.onNull) : undefined;
  return (c) => {
    const v = input(c);
    const target = to(c);
    if (nullish(v)) return onNull !== undefined ? onNull(c) : null;
    if (nullish(target)) return null;
    try {
      return convertValue(v, convertTarget(target));
    } catch (e) {
      if (onError !== undefined && e instanceof EngineError && e.code === ErrorCodes.ConversionFailure) return onError(c);
      throw e;
    }
  };
}

function compileTo(target: "double" | "string" | "objectId" | "bool" | "date" | "int" | "long" | "decimal"): OperatorCompiler {
  return (spec, env, name) => nullPropagatingUnary(name, spec, env, (v) => convertValue(v, target));
}

// ---------------------------------------------------------------------------------------------
// Sets

function setOf(name: string, v: unknown): unknown[] {
  if (!Array.isArray(v)) typeError(17044, `All operands of ${name} must be arrays. One argument is of type: ${bsonTypeName(v)}`);
  return v;
}

function uniqueValues(xs: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const x of xs) {
    const k = equalityKey(x);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(x);
    }
  }
  return out;
}

function compileSetOp(kind: "union" | "intersection" | "difference" | "equals" | "subset"): OperatorCompiler {
  return (spec, env, name) => {
    const evs = argList(spec, env);
    if ((kind === "difference" || kind === "subset") && evs.length !== 2) arity(name, evs, 2);
    if (kind === "equals" && evs.length < 2) arity(name, evs, 2, Number.MAX_SAFE_INTEGER);
    return (c) => {
      const vals = evs.map((e) => e(c));
      if ((kind === "union" || kind === "intersection" || kind === "difference") && vals.some(nullish)) return null;
      const sets = vals.map((v) => setOf(name, v));
      const keys = sets.map((s) => new Set(s.map(equalityKey)));
      switch (kind) {
        case "union":
          return uniqueValues(sets.flat());
        case "intersection":
          if (sets.length === 0) return [];
          return uniqueValues(sets[0]!.filter((x) => keys.every((k) => k.has(equalityKey(x)))));
        case "difference":
          return uniqueValues(sets[0]!.filter((x) => !keys[1]!.has(equalityKey(x))));
        case "equals":
          return keys.every((k) => k.size === keys[0]!.size && [...k].every((x) => keys[0]!.has(x)));
        case "subset":
          return [...keys[0]!].every((x) => keys[1]!.has(x));
      }
    };
  };
}

function compileElementsTrue(all: boolean): OperatorCompiler {
  return (spec, env, name) => {
    const [a] = arity(name, argList(spec, env), 1) as [Ev];
    return (c) => {
      const arr = setOf(name, a(c));
      return all ? arr.every(isTruthy) : arr.some(isTruthy);
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Bitwise

function compileBitwise(op: "and" | "or" | "xor"): OperatorCompiler {
  return (spec, env, name) => {
    const evs = argList(spec, env);
    return (c) => {
      let acc: bigint = op === "and" ? -1n : 0n;
      let isLong = false;
      for (const ev of evs) {
        const v = ev(c);
        if (nullish(v)) return null;
        const k = numericKind(v);
        if (k !== "int" && k !== "long") typeError(28765, `${name} only supports int and long, not: ${bsonTypeName(v)}`);
        if (k === "long") isLong = true;
        const x = toInt64(v)!;
        acc = op === "and" ? acc & x : op === "or" ? acc | x : acc ^ x;
      }
      return isLong ? Long.fromBigInt(BigInt.asIntN(64, acc)) : new Int32(Number(BigInt.asIntN(32, acc)));
    };
  };
}

function compileBitNot(spec: unknown, env: ExprEnv, name: string): Ev {
  return nullPropagatingUnary(name, spec, env, (v) => {
    const k = numericKind(v);
    if (k === "int") return new Int32(~toDouble(v));
    if (k === "long") return Long.fromBigInt(BigInt.asIntN(64, ~toInt64(v)!));
    return typeError(28765, `${name} only supports int and long, not: ${bsonTypeName(v)}`);
  });
}

// ---------------------------------------------------------------------------------------------
// Strings handled natively (the rest go to mingo): they need BSON-aware inputs or PCRE regexes.

function compileConcat(spec: unknown, env: ExprEnv): Ev {
  const evs = argList(spec, env);
  return (c) => {
    let s = "";
    for (const ev of evs) {
      const v = ev(c);
      if (nullish(v)) return null;
      if (typeof v !== "string") typeError(16702, `$concat only supports strings, not ${bsonTypeName(v)}`);
      s += v;
    }
    return s;
  };
}

function compileCase(upper: boolean): OperatorCompiler {
  return (spec, env, name) => {
    const [a] = arity(name, argList(spec, env), 1) as [Ev];
    return (c) => {
      const v = a(c);
      if (nullish(v)) return "";
      const s = typeof v === "string" ? v : valueToString(v);
      // The server changes ASCII letters only.
      return s.replace(upper ? /[a-z]+/g : /[A-Z]+/g, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));
    };
  };
}

function compileRegex(mode: "match" | "find" | "findAll"): OperatorCompiler {
  return (spec, env, name) => {
    const o = objectArgs(name, spec, ["input", "regex", "options"], ["input", "regex"]);
    const input = env.compile(o.input);
    const regex = env.compile(o.regex);
    const options = "options" in o ? env.compile(o.options) : undefined;
    return (c) => {
      const s = input(c);
      const r = regex(c);
      const opt = options === undefined ? undefined : options(c);
      let pattern: string;
      let flags = "";
      if (r instanceof BSONRegExp) {
        pattern = r.pattern;
        flags = r.options;
      } else if (r instanceof RegExp) {
        pattern = r.source;
        flags = r.flags.replace(/[gyd]/g, "");
      } else if (typeof r === "string") pattern = r;
      else if (nullish(r)) return mode === "match" ? false : mode === "find" ? null : [];
      else return typeError(51105, `${name} needs 'regex' to be of type string or regex`);
      if (!nullish(opt)) {
        if (typeof opt !== "string") typeError(51106, `${name} needs 'options' to be of type string`);
        if (flags !== "" && opt !== "") typeError(51107, `${name} found regex option(s) specified in both 'regex' and 'option' fields`);
        flags = opt || flags;
      }
      if (nullish(s)) return mode === "match" ? false : mode === "find" ? null : [];
      if (typeof s !== "string") typeError(51104, `${name} needs 'input' to be of type string`);
      const base = toJsRegExp(pattern, flags);
      if (mode === "match") return base.test(s);
      const re = new RegExp(base.source, base.flags + "g");
      const results: unknown[] = [];
      let m: RegExpExecArray | null;
      while ((m = re.exec(s)) !== null) {
        const idx = [...s.slice(0, m.index)].length; // code point index, as the server reports it
        results.push({ match: m[0], idx: new Int32(idx), captures: m.slice(1).map((x) => (x === undefined ? null : x)) });
        if (mode === "find") break;
        if (m[0] === "") re.lastIndex++;
      }
      return mode === "find" ? (results[0] ?? null) : results;
    };
  };
}

function compileIndexOfCP(spec: unknown, env: ExprEnv, name: string): Ev {
  const evs = arity(name, argList(spec, env), 2, 4);
  return (c) => {
    const s = evs[0]!(c);
    if (nullish(s)) return null;
    if (typeof s !== "string") typeError(40093, `$indexOfCP requires a string as the first argument, found: ${bsonTypeName(s)}`);
    const sub = evs[1]!(c);
    if (typeof sub !== "string") typeError(40094, `$indexOfCP requires a string as the second argument, found: ${bsonTypeName(sub)}`);
    const cps = [...s];
    const subCps = [...sub];
    const start = evs.length > 2 ? integral(name, evs[2]!(c), 40096) : 0;
    const end = evs.length > 3 ? Math.min(integral(name, evs[3]!(c), 40096), cps.length) : cps.length;
    if (start < 0 || end < 0) typeError(40097, `${name} requires a nonnegative start/end value`);
    for (let i = start; i + subCps.length <= end; i++) {
      let ok = true;
      for (let j = 0; j < subCps.length && ok; j++) ok = cps[i + j] === subCps[j];
      if (ok) return new Int32(i);
    }
    return new Int32(-1);
  };
}

// ---------------------------------------------------------------------------------------------
// Misc

function compileLiteral(spec: unknown): Ev {
  return () => spec;
}

function compileRand(spec: unknown): Ev {
  if (!isDocument(spec) || Object.keys(spec).length !== 0) typeError(3040501, "$rand does not currently accept arguments");
  return () => new Double(Math.random());
}

/** Operators implemented natively (BSON-aware). Everything else goes to mingo or is rejected. */
export const NATIVE_OPERATORS: Readonly<Record<string, OperatorCompiler>> = {
  $add: compileAdd,
  $subtract: compileSubtract,
  $multiply: compileMultiply,
  $divide: compileDivide,
  $mod: compileMod,
  $abs: compileAbs,
  $ceil: compileFloorCeil("ceil"),
  $floor: compileFloorCeil("floor"),
  $round: compileRounding("even"),
  $trunc: compileRounding("trunc"),
  $sqrt: compileSqrt,
  $pow: compilePow,
  $exp: compileExpLog(Math.exp, false),
  $ln: compileExpLog(Math.log, true),
  $log10: compileExpLog(Math.log10, true),
  $log: compileLog,
  $eq: compileComparison("$eq"),
  $ne: compileComparison("$ne"),
  $gt: compileComparison("$gt"),
  $gte: compileComparison("$gte"),
  $lt: compileComparison("$lt"),
  $lte: compileComparison("$lte"),
  $cmp: compileComparison("$cmp"),
  $and: compileAnd,
  $or: compileOr,
  $not: compileNot,
  $cond: compileCond,
  $ifNull: compileIfNull,
  $switch: compileSwitch,
  $let: compileLet,
  $map: compileMap,
  $filter: compileFilter,
  $reduce: compileReduce,
  $arrayElemAt: compileArrayElemAt,
  $first: compileFirstLast("first"),
  $last: compileFirstLast("last"),
  $firstN: compileFirstLastN("first"),
  $lastN: compileFirstLastN("last"),
  $minN: compileMinMaxN("min"),
  $maxN: compileMinMaxN("max"),
  $size: compileSize,
  $isArray: compileIsArray,
  $in: compileIn,
  $indexOfArray: compileIndexOfArray,
  $concatArrays: compileConcatArrays,
  $slice: compileSlice,
  $reverseArray: compileReverseArray,
  $range: compileRange,
  $arrayToObject: compileArrayToObject,
  $objectToArray: compileObjectToArray,
  $zip: compileZip,
  $sortArray: compileSortArray,
  $sum: compileAccumulatorExpr("sum"),
  $avg: compileAccumulatorExpr("avg"),
  $min: compileAccumulatorExpr("min"),
  $max: compileAccumulatorExpr("max"),
  $stdDevPop: compileAccumulatorExpr("stdDevPop"),
  $stdDevSamp: compileAccumulatorExpr("stdDevSamp"),
  $mergeObjects: compileMergeObjects,
  $getField: compileGetField,
  $setField: compileSetField(false),
  $unsetField: compileSetField(true),
  $type: compileType,
  $isNumber: compileIsNumber,
  $convert: compileConvert,
  $toBool: compileTo("bool"),
  $toInt: compileTo("int"),
  $toLong: compileTo("long"),
  $toDouble: compileTo("double"),
  $toDecimal: compileTo("decimal"),
  $toString: compileTo("string"),
  $toObjectId: compileTo("objectId"),
  $toDate: compileTo("date"),
  $setUnion: compileSetOp("union"),
  $setIntersection: compileSetOp("intersection"),
  $setDifference: compileSetOp("difference"),
  $setEquals: compileSetOp("equals"),
  $setIsSubset: compileSetOp("subset"),
  $allElementsTrue: compileElementsTrue(true),
  $anyElementTrue: compileElementsTrue(false),
  $bitAnd: compileBitwise("and"),
  $bitOr: compileBitwise("or"),
  $bitXor: compileBitwise("xor"),
  $bitNot: compileBitNot,
  $concat: compileConcat,
  $toUpper: compileCase(true),
  $toLower: compileCase(false),
  $indexOfCP: compileIndexOfCP,
  $regexMatch: compileRegex("match"),
  $regexFind: compileRegex("find"),
  $regexFindAll: compileRegex("findAll"),
  $literal: compileLiteral,
  $rand: compileRand,
  ...DATE_OPERATORS,
  ...STRING_OPERATORS,
};


