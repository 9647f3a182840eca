import type { StringComparator } from "./bson-order.js";

/**
 * The evaluation state of an aggregation expression: `$$ROOT`, `$$CURRENT`, user variables
 * (`$$name`, scoped through the prototype chain so `$let`/`$map` bindings shadow outer ones) and the
 * clock behind `$$NOW`.
 */
export interface EvalCtx {
  readonly root: unknown;
  readonly current: unknown;
  readonly vars: Record<string, unknown>;
  readonly now: Date;
}

/** A compiled expression: returns the value, or `undefined` for "missing". */
export type Ev = (c: EvalCtx) => unknown;

/** Compile-time environment shared by all operator compilers. */
export interface ExprEnv {
  /** Collation-aware string comparator (`undefined` = binary). */
  readonly cmp: StringComparator | undefined;
  /** Compiles a nested expression in the same environment. */
  compile(expr: unknown): Ev;
}

/** Compiles the argument of one operator (`{$op: spec}`). */
export type OperatorCompiler = (spec: unknown, env: ExprEnv, name: string) => Ev;
