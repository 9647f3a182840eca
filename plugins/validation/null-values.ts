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

/** A value ajv's coercion may turn into null (`""`, `0`, `false`), and where it sits. */
export interface NullableCandidate {
  readonly parent: Record<string, unknown> | unknown[];
  readonly key: string;
  readonly original: "" | 0 | false;
  /** The value's JSON pointer, as ajv reports it (`/rules`, `/steps/0/done`). */
  readonly pointer: string;
}

/**
 * The `""`, `0` and `false` of a body: where a schema allows null, ajv's coercion turns exactly
 * these into null, so `{"rules": 0}` would empty a field the client never asked to empty (and an
 * array the model relies on would become null). Collected before the coercing pass, so
 * `coercedIntoNullIssues` can tell which of them it changed. Free for bodies without them.
 *
 * @example
 * const candidates = nullableCandidates(body);
 * validate(body);
 * const issues = coercedIntoNullIssues(validate, body, candidates);
 */
export function nullableCandidates(value: unknown): NullableCandidate[] {
  const found: NullableCandidate[] = [];
  const visit = (node: unknown, pointer: string, depth: number): void => {
    if (node === null || typeof node !== "object" || depth > 32) return;
    const entries: Array<[string, unknown]> = Array.isArray(node) ? node.map((child, index) => [String(index), child]) : Object.entries(node);
    for (const [key, child] of entries) {
      const childPointer = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (child === "" || child === 0 || child === false) found.push({ parent: node as Record<string, unknown>, key, original: child, pointer: childPointer });
      else visit(child, childPointer, depth + 1);
    }
  };
  visit(value, "", 0);
  return found;
}

/**
 * Type errors for the candidates the coercing pass turned into null: coercion never invents a
 * null — a client who means "no value" sends one. Their original values are put back and checked
 * without coercion, so the message is the validator's own ("must be an array or null").
 *
 * @example
 * coercedIntoNullIssues(validate, { rules: null }, candidates); // [{ path: "rules", message: "must be an array or null", keyword: "type" }]
 */
export function coercedIntoNullIssues(validate: ValidateFunction, value: unknown, candidates: readonly NullableCandidate[]): ValidationIssue[] {
  const coerced = candidates.filter((candidate) => (candidate.parent as Record<string, unknown>)[candidate.key] === null);
  if (coerced.length === 0) return [];
  for (const candidate of coerced) (candidate.parent as Record<string, unknown>)[candidate.key] = candidate.original;
  const strict = ajvFor({ coerceTypes: false, removeAdditional: false }).compile(validate.schema as object);
  strict(value);
  const pointers = new Set(coerced.map((candidate) => candidate.pointer));
  const typeErrors = (strict.errors ?? []).filter((error) => error.keyword === "type" && pointers.has(error.instancePath));
  const issues = fromAjvErrors(typeErrors);
  const reported = new Set(typeErrors.map((error) => error.instancePath));
  for (const candidate of coerced) {
    // Only an `anyOf` branch can coerce without a type error of its own; it is still no null.
    if (!reported.has(candidate.pointer)) issues.push({ path: pathOf(candidate.pointer), message: "has the wrong type", keyword: "type" });
  }
  const seen = new Set<string>();
  return issues.filter((issue) => !seen.has(issue.path) && seen.add(issue.path));
}

function pathOf(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}
