import type { ValidateFunction } from "ajv";
import { ajvFor } from "./ajv-instances.js";
import { fromAjvErrors, type ValidationIssue } from "./validation-issues.js";

/**
 * The `null`s of a body that its schema does not allow. ajv's type coercion turns `null` into
 * `""`, `0` or `false`, so with `coerceTypes` on, `{"title": null}` would pass as an empty title
 * and `{"count": null}` would store 0 — yet a client sending null means "no value". So nulls are
 * checked against the same schema without coercion, before the coercing pass: accepted where the
 * schema allows null (optional model fields), a type error ("must be a string") elsewhere. Free
 * for bodies without a null, which are never re-checked.
 *
 * @example
 * nullValueIssues(validate, { title: null }); // [{ path: "title", message: "must be a string", keyword: "type" }]
 */
export function nullValueIssues(validate: ValidateFunction, value: unknown): ValidationIssue[] {
  if (!containsNull(value, 0)) return [];
  // Neither coercing nor stripping: this pass only reads the body. ajv caches the compiled schema.
  const strict = ajvFor({ coerceTypes: false, removeAdditional: false }).compile(validate.schema as object);
  if (strict(value)) return [];
  const errors = (strict.errors ?? []).filter((error) => error.keyword === "type" && valueAt(value, error.instancePath) === null);
  const seen = new Set<string>();
  return fromAjvErrors(errors).filter((issue) => !seen.has(issue.path) && seen.add(issue.path));
}

/** Bodies nest at most 32 levels (`operatorKeys` refuses deeper ones); the walk stops there too. */
function containsNull(value: unknown, depth: number): boolean {
  if (value === null) return true;
  if (typeof value !== "object" || depth > 32) return false;
  return Object.values(value).some((child) => containsNull(child, depth + 1));
}

/** The value at an ajv instance path (a JSON pointer). */
function valueAt(root: unknown, pointer: string): unknown {
  let current = root;
  for (const segment of pointer.split("/").slice(1)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[segment.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return current;
}
