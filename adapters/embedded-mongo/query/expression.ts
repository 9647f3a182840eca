import { EngineError, ErrorCodes } from "../engine-error.js";
import type { Collation } from "./types.js";

/** Evaluation-time inputs of a compiled expression. */
export interface EvalScope {
  readonly variables?: Readonly<Record<string, unknown>>;
  readonly now?: Date;
}

/** A compiled aggregation expression. */
export type CompiledExpression = (doc: unknown, scope?: EvalScope) => unknown;

/** Placeholder until the aggregation evaluator lands. */
export function compileExpression(_expr: unknown, _options: { collation?: Collation } = {}): CompiledExpression {
  throw new EngineError(ErrorCodes.BadValue, "$expr is not implemented yet");
}

/** Aggregation truthiness: false, null, missing and zero are false. */
export function isTruthy(v: unknown): boolean {
  return !(v === false || v === null || v === undefined || v === 0);
}
