import type { ValidationIssue } from "./validation-issues.js";

/** Deeper bodies are refused outright: no legitimate document nests this far. */
const MAX_DEPTH = 32;

/**
 * Finds keys that start with `$` at any depth of a JSON body (`{"$set": ...}`,
 * `{"tags": [{"$where": ...}]}`): MongoDB reads them as operators, so they are refused before
 * anything is validated or written. Also reports everything `unstorableKeys` does: keys the
 * database cannot store, and bodies nested deeper than 32 levels.
 *
 * @example
 * operatorKeys({ title: "a", meta: { $gt: 1 } }); // [{ path: "meta.$gt", message: "...", keyword: "operator" }]
 */
export function operatorKeys(body: unknown): ValidationIssue[] {
  return refusedKeys(body, true);
}

/**
 * Finds what no database write can take, at any depth of a JSON body: keys containing a NUL
 * character (BSON writes keys as NUL-terminated strings, so the driver throws on them) and
 * nesting deeper than 32 levels. Unlike `$`-keys, these are refused on every route that validates
 * a body, `validateRequestBody` included.
 *
 * @example
 * unstorableKeys({ meta: { "a\u0000b": 1 } }); // [{ path: "meta.a\u0000b", message: "must not contain a NUL character", keyword: "key" }]
 */
export function unstorableKeys(body: unknown): ValidationIssue[] {
  return refusedKeys(body, false);
}

function refusedKeys(body: unknown, refuseOperators: boolean): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const visit = (value: unknown, path: string, depth: number): void => {
    if (value === null || typeof value !== "object") return;
    if (depth > MAX_DEPTH) {
      issues.push({ path, message: `is nested more than ${MAX_DEPTH} levels deep`, keyword: "depth" });
      return;
    }
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) visit(value[index], path ? `${path}.${index}` : String(index), depth + 1);
      return;
    }
    for (const key of Object.keys(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (key.includes("\u0000")) issues.push({ path: childPath, message: "must not contain a NUL character", keyword: "key" });
      else if (refuseOperators && key.startsWith("$")) issues.push({ path: childPath, message: "must not start with $ (operators are not accepted in bodies)", keyword: "operator" });
      else visit((value as Record<string, unknown>)[key], childPath, depth + 1);
    }
  };
  visit(body, "", 0);
  return issues;
}
