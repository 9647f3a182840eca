import type { OperatorCompiler } from "./expression-types.js";

/**
 * String expression operators implemented natively where mingo's answer differs from MongoDB's.
 * Operators not listed here still go to mingo (docs/decisions.md, "What still falls back to mingo").
 *
 * @example
 * NATIVE_OPERATORS.$strcasecmp === STRING_OPERATORS.$strcasecmp;
 */
export const STRING_OPERATORS: Readonly<Record<string, OperatorCompiler>> = {};
