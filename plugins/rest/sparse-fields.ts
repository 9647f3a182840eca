import type { ParameterObject, SchemaObject } from "openapi3-ts/oas31";
import { requestValidationError, type ValidationIssue } from "../validation/index.js";

/** The query parameter that picks a response's fields (JSON:API's sparse fieldsets, one type). */
export const FIELDS_PARAMETER = "fields";

/** Always answered, whatever `fields` says: a record without its id could not be read, changed or told apart. */
const ALWAYS = ["id", "_id"] as const;

/**
 * The top-level names a router's responses can hold: its response schema's properties and the
 * ones a `responseHandler` adds (`openApi.responseProperties`).
 *
 * @example
 * responseFieldNames(schemas.response, options.openApi?.responseProperties); // ["_id", "id", "title", ...]
 */
export function responseFieldNames(response: SchemaObject, added: Readonly<Record<string, unknown>> = {}): string[] {
  return [...new Set([...Object.keys(response.properties ?? {}), ...Object.keys(added)])];
}

/**
 * Reads `?fields=title,done` (or repeated `fields=title&fields=done`): the set of fields to
 * answer, or undefined when absent. A name the responses cannot hold (unknown, hidden, misspelt)
 * is a problem reported with the list's others, so a typo is never a silently thinner answer.
 *
 * @example
 * parseFields("title, done", new Set(["id", "title", "done"]), problems); // Set {"title", "done"}
 */
export function parseFields(raw: unknown, allowed: ReadonlySet<string>, problems: ValidationIssue[]): ReadonlySet<string> | undefined {
  if (raw === undefined) return undefined;
  const parts = typeof raw === "string" ? [raw] : Array.isArray(raw) && raw.every((part) => typeof part === "string") ? (raw as string[]) : undefined;
  if (!parts) {
    problems.push({ path: FIELDS_PARAMETER, message: "must be a comma-separated list of field names", keyword: "type" });
    return undefined;
  }
  const names = parts.flatMap((part) => part.split(",")).map((name) => name.trim()).filter((name) => name.length > 0);
  if (names.length === 0) problems.push({ path: FIELDS_PARAMETER, message: "must name at least one field", keyword: "minItems" });
  const unknown = [...new Set(names.filter((name) => !allowed.has(name)))];
  // Only so many names are echoed back: the query string is the client's, and may be huge.
  if (unknown.length > 0) problems.push({ path: FIELDS_PARAMETER, message: `${unknown.slice(0, 5).map((name) => JSON.stringify(name.slice(0, 64))).join(", ")}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""}: not a field of these records`, keyword: "enum" });
  return new Set(names);
}

/**
 * The read route's `?fields=` parser: the set, undefined when absent, or a 400 like a list's.
 *
 * @example
 * const parse = readFieldsParser(new Set(["id", "title"]));
 * parse(req.query); // Set {"title"} for ?fields=title
 */
export function readFieldsParser(allowed: ReadonlySet<string>): (query: Record<string, unknown>) => ReadonlySet<string> | undefined {
  return (query) => {
    const issues: ValidationIssue[] = [];
    const fields = parseFields(query[FIELDS_PARAMETER], allowed, issues);
    if (issues.length > 0) throw requestValidationError(issues, "query");
    return fields;
  };
}

/**
 * One response document with only the asked fields (and its id); anything not a plain record
 * (a `responseHandler` may answer otherwise) is left as it is.
 *
 * @example
 * pickFields({ id: "1", title: "a", done: false }, new Set(["title"])); // { id: "1", title: "a" }
 */
export function pickFields(doc: unknown, fields: ReadonlySet<string>): unknown {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return doc;
  const source = doc as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const name of [...ALWAYS, ...fields]) if (name in source) picked[name] = source[name];
  return picked;
}

/**
 * The `fields` parameter as `/openapi.json` documents it, for the list and read operations.
 *
 * @example
 * fieldsParameter(["id", "title", "done"]);
 */
export function fieldsParameter(names: readonly string[]): ParameterObject {
  return {
    name: FIELDS_PARAMETER,
    in: "query",
    description: "Only these fields in each record (comma-separated), besides `id` and `_id`: a lighter answer for screens that show a few columns. Unknown names are 400.",
    style: "form",
    explode: false,
    schema: { type: "array", items: { type: "string", enum: [...names] }, minItems: 1, uniqueItems: true },
  };
}
