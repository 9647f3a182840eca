/** Operators that write (`$out`, `$merge`) or run server-side JavaScript, refused anywhere in a query. */
export const REFUSED_OPERATORS: readonly string[] = ["$out", "$merge", "$where", "$function", "$accumulator"];

const MAX_DEPTH = 64;

/**
 * The first refused operator found at any depth of a filter or pipeline (inside `$facet`,
 * `$lookup` and `$unionWith` sub-pipelines too), or undefined when the query only reads.
 * Too deep a value counts as refused: it cannot be checked, so it is not run.
 *
 * @example
 * findRefusedOperator([{ $match: {} }, { $facet: { a: [{ $out: "x" }] } }]); // "$out"
 */
export function findRefusedOperator(value: unknown, depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return `a query nested deeper than ${MAX_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findRefusedOperator(item, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (REFUSED_OPERATORS.includes(key)) return key;
    const found = findRefusedOperator(child, depth + 1);
    if (found) return found;
  }
  return undefined;
}
