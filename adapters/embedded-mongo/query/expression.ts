import { Timestamp } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { stringComparator } from "./bson-order.js";
import { isDocument } from "./document-path.js";
import { compileMingoOperator, hasMingoOperator } from "./expression-fallback.js";
import { NATIVE_OPERATORS } from "./expression-operators.js";
import type { EvalCtx, Ev, ExprEnv } from "./expression-types.js";
import { aggPathValue } from "./expression-runtime.js";
import type { Collation } from "./types.js";

export type { EvalCtx, Ev } from "./expression-types.js";
export { aggCompare, aggPathValue, isTruthy, withVars } from "./expression-runtime.js";

/** Evaluation-time inputs of a compiled expression. */
export interface EvalScope {
  /** User variables (`let`), read as `$$name`. */
  readonly variables?: Readonly<Record<string, unknown>>;
  /** The value of `$$NOW` (default: the time of evaluation). */
  readonly now?: Date;
}

/** Compile-time options of an expression. */
export interface ExpressionOptions {
  readonly collation?: Collation;
}

/**
 * A compiled aggregation expression: evaluates against a document (`$$ROOT` and `$$CURRENT`) and
 * returns the value, or `undefined` when the result is "missing" (e.g. a missing field, `$$REMOVE`).
 */
export type CompiledExpression = (doc: unknown, scope?: EvalScope) => unknown;

/**
 * Compiles an aggregation expression once. BSON-aware operators (arithmetic with MongoDB's numeric
 * promotion, comparisons in BSON order with the collation, conditionals, arrays, objects, type
 * conversions, set operators, `$sum`/`$avg`/`$min`/`$max`, dates...) are implemented natively;
 * the remaining string operators and trigonometry are delegated to mingo with exact value
 * conversion (see expression-fallback.ts). Unknown operators throw InvalidPipelineOperator (168).
 *
 * @example
 * const total = compileExpression({ $multiply: ["$price", "$qty"] });
 * total({ price: new Int32(3), qty: new Int32(4) }); // Int32(12)
 */
export function compileExpression(expr: unknown, options: ExpressionOptions = {}): CompiledExpression {
  const ev = compileEv(expr, options);
  return (doc, scope) => ev(makeEvalCtx(doc, scope));
}

/**
 * Lower-level form of {@link compileExpression} for stages that evaluate many expressions against
 * one document: compile with `compileEv`, build one context with `makeEvalCtx`.
 *
 * @example
 * const ev = compileEv("$a");
 * ev(makeEvalCtx({ a: 1 })); // 1
 */
export function compileEv(expr: unknown, options: ExpressionOptions = {}): Ev {
  return makeEnv(options).compile(expr);
}

/**
 * Builds the evaluation context for a document (`$$ROOT` = `$$CURRENT` = the document).
 *
 * @example
 * makeEvalCtx({ a: 1 }, { variables: { x: 2 } });
 */
export function makeEvalCtx(doc: unknown, scope?: EvalScope): EvalCtx {
  const vars = scope?.variables !== undefined ? Object.assign(Object.create(null) as Record<string, unknown>, scope.variables) : EMPTY_VARS;
  return { root: doc, current: doc, vars, now: scope?.now ?? new Date() };
}

const EMPTY_VARS: Record<string, unknown> = Object.freeze(Object.create(null) as Record<string, unknown>);

function makeEnv(options: ExpressionOptions): ExprEnv {
  const cmp = stringComparator(options.collation);
  const env: ExprEnv = {
    cmp,
    compile: (expr) => compileAny(expr, env, options.collation),
  };
  return env;
}

// ---------------------------------------------------------------------------------------------

function compileAny(expr: unknown, env: ExprEnv, collation: Collation | undefined): Ev {
  if (typeof expr === "string") {
    if (expr.startsWith("$$")) return compileVariable(expr);
    if (expr.startsWith("$")) return compileFieldPath(expr);
    return () => expr;
  }
  if (Array.isArray(expr)) {
    const items = expr.map((e) => env.compile(e));
    return (c) => {
      const out = new Array<unknown>(items.length);
      for (let i = 0; i < items.length; i++) {
        const v = items[i]!(c);
        out[i] = v === undefined ? null : v; // missing becomes null inside array literals
      }
      return out;
    };
  }
  if (isDocument(expr)) {
    const keys = Object.keys(expr);
    if (keys.length > 0 && keys[0]!.startsWith("$")) {
      if (keys.length !== 1) {
        throw new EngineError(15983, `an expression specification must contain exactly one field, the name of the expression. Found ${keys.length} fields in ${JSON.stringify(keys)}`);
      }
      return compileOperator(keys[0]!, expr[keys[0]!], env, collation);
    }
    const fields = keys.map((k) => {
      if (k.startsWith("$")) throw new EngineError(16410, `FieldPath field names may not start with '$'. Consider using $getField or $setField.`);
      if (k.includes(".")) throw new EngineError(16412, `FieldPath field names may not contain '.'. Consider using $getField or $setField.`);
      return [k, env.compile(expr[k])] as const;
    });
    return (c) => {
      const out: Record<string, unknown> = {};
      for (const [k, ev] of fields) {
        const v = ev(c);
        if (v !== undefined) out[k] = v;
      }
      return out;
    };
  }
  return () => expr;
}

function compileOperator(name: string, spec: unknown, env: ExprEnv, collation: Collation | undefined): Ev {
  const native = NATIVE_OPERATORS[name];
  if (native !== undefined) return native(spec, env, name);
  if (name === "$function" || name === "$accumulator" || name === "$where") {
    throw new EngineError(ErrorCodes.BadValue, `${name} is not supported by the embedded engine (server-side JavaScript is disabled)`);
  }
  if (hasMingoOperator(name)) return compileMingoOperator(name, spec, env, collation);
  throw new EngineError(ErrorCodes.InvalidPipelineOperator, `Unrecognized expression '${name}'`);
}

function validateFieldPath(path: string, whole: string): string[] {
  const parts = path.split(".");
  for (const p of parts) {
    if (p === "") throw new EngineError(15998, `FieldPath field names may not be empty strings.`);
    if (p.startsWith("$")) throw new EngineError(16410, `FieldPath field names may not start with '$'. Consider using $getField or $setField.`);
  }
  void whole;
  return parts;
}

function compileFieldPath(expr: string): Ev {
  if (expr === "$") throw new EngineError(16872, "'$' by itself is not a valid FieldPath");
  const parts = validateFieldPath(expr.slice(1), expr);
  if (parts.length === 1) {
    const f = parts[0]!;
    return (c) => {
      const cur = c.current;
      if (!isDocument(cur)) return aggPathValue(cur, parts, 0);
      return Object.prototype.hasOwnProperty.call(cur, f) ? cur[f] : undefined;
    };
  }
  return (c) => aggPathValue(c.current, parts, 0);
}

const SYSTEM_VARS = new Set(["ROOT", "CURRENT", "NOW", "CLUSTER_TIME", "REMOVE", "DESCEND", "PRUNE", "KEEP"]);

function compileVariable(expr: string): Ev {
  const body = expr.slice(2);
  const dot = body.indexOf(".");
  const name = dot === -1 ? body : body.slice(0, dot);
  const rest = dot === -1 ? [] : validateFieldPath(body.slice(dot + 1), expr);
  let base: Ev;
  if (SYSTEM_VARS.has(name)) {
    switch (name) {
      case "ROOT":
        base = (c) => c.root;
        break;
      case "CURRENT":
        base = (c) => c.current;
        break;
      case "NOW":
        base = (c) => c.now;
        break;
      case "CLUSTER_TIME":
        base = (c) => new Timestamp({ t: Math.floor(c.now.getTime() / 1000), i: 1 });
        break;
      case "REMOVE":
        return () => undefined;
      default:
        return () => `$$${name}`; // $redact's DESCEND / PRUNE / KEEP markers
    }
  } else {
    if (name === "") throw new EngineError(ErrorCodes.FailedToParse, "empty variable names are not allowed");
    base = (c) => {
      if (!(name in c.vars)) throw new EngineError(17276, `Use of undefined variable: ${name}`);
      return c.vars[name];
    };
  }
  if (rest.length === 0) return base;
  return (c) => aggPathValue(base(c), rest, 0);
}

