import type { ErrorObject } from "ajv";
import { APIError } from "../../kernel/api-error.js";
import type { HttpErrorFactory } from "../../kernel/errors.js";
import { ValidationErrors } from "./errors.js";

/** One validation problem: the dotted path of the value (`""` for the whole body) and why. */
export interface ValidationIssue {
  path: string;
  message: string;
  /** The rule that failed (`required`, `type`, `enum`, `additionalProperties`, `operator`...). */
  keyword?: string;
}

/** Where the validated value came from. */
export type ValidationLocation = "body" | "query";

/**
 * Converts ajv's errors into issues with dotted paths that name the offending property (for a
 * missing or unknown property, the property itself rather than its parent object), in one
 * message style: `must be a boolean or null` rather than ajv's `must be boolean,null`, and one
 * issue for a failed `anyOf`/`oneOf` instead of one per branch plus the combinator's own.
 *
 * @example
 * fromAjvErrors(validate.errors ?? []); // [{ path: "title", message: "must be a string", keyword: "type" }]
 */
export function fromAjvErrors(errors: readonly ErrorObject[]): ValidationIssue[] {
  // Branch errors are grouped under their combinator in one pass: a hostile body (thousands of
  // array items failing an anyOf) must not cost a comparison of every error with every other.
  const branches = new Map<string, ErrorObject[]>();
  for (const error of errors) if (isCombinator(error)) branches.set(combinatorKey(error.instancePath, error.schemaPath), []);
  const inBranch = new Set<ErrorObject>();
  if (branches.size > 0) {
    for (const error of errors) {
      const group = enclosingCombinator(error, branches);
      if (group) {
        group.push(error);
        inBranch.add(error);
      }
    }
  }
  return errors
    .filter((error) => !inBranch.has(error))
    .map((error) => {
      const segments = error.instancePath.split("/").slice(1).map(unescapePointer);
      let message = error.message ?? "is invalid";
      if (error.keyword === "required") {
        segments.push(String((error.params as { missingProperty: string }).missingProperty));
        message = "is required";
      } else if (error.keyword === "additionalProperties") {
        segments.push(String((error.params as { additionalProperty: string }).additionalProperty));
        message = "is not a field of this resource";
      } else if (error.keyword === "enum") {
        const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
        if (allowed) message = `must be one of ${allowed.map((value) => JSON.stringify(value)).join(", ")}`;
      } else if (error.keyword === "type") {
        message = `must be ${alternatives(typeNames(error))}`;
      } else if (isCombinator(error)) {
        message = combinatorMessage(branches.get(combinatorKey(error.instancePath, error.schemaPath)) ?? []);
      }
      return { path: segments.join("."), message, keyword: error.keyword };
    });
}

function isCombinator(error: ErrorObject): boolean {
  return error.keyword === "anyOf" || error.keyword === "oneOf";
}

function combinatorKey(instancePath: string, schemaPath: string): string {
  return `${instancePath}\u0000${schemaPath}`;
}

/**
 * The branch list of the outermost failed combinator an error sits under: one whose schema path
 * is a strict prefix ending in `/anyOf` or `/oneOf`, at the error's data or above it.
 */
function enclosingCombinator(error: ErrorObject, branches: ReadonlyMap<string, ErrorObject[]>): ErrorObject[] | undefined {
  const schemaSegments = error.schemaPath.split("/");
  const dataSegments = error.instancePath.split("/");
  for (let end = 1; end < schemaSegments.length - 1; end++) {
    if (schemaSegments[end] !== "anyOf" && schemaSegments[end] !== "oneOf") continue;
    const schemaPrefix = schemaSegments.slice(0, end + 1).join("/");
    for (let depth = 1; depth <= dataSegments.length; depth++) {
      const group = branches.get(combinatorKey(dataSegments.slice(0, depth).join("/"), schemaPrefix));
      if (group) return group;
    }
  }
  return undefined;
}

/** ajv gives a type union as `"boolean,null"` (or an array): each member, with its article. */
function typeNames(error: ErrorObject): string[] {
  const type = (error.params as { type?: unknown }).type;
  const names = Array.isArray(type) ? type.map(String) : String(type ?? "").split(",");
  return names.filter(Boolean).map(withArticle);
}

function withArticle(type: string): string {
  if (type === "null") return "null";
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** `["a", "b", "c"]` → `"a, b or c"`. */
function alternatives(items: readonly string[]): string {
  const unique = [...new Set(items)];
  if (unique.length <= 1) return unique[0] ?? "valid";
  return `${unique.slice(0, -1).join(", ")} or ${unique[unique.length - 1]}`;
}

/** Readable names of the formats svc's schemas use; others are quoted as ajv names them. */
const FORMAT_NAMES: Readonly<Record<string, string>> = {
  date: "a date (YYYY-MM-DD)",
  "date-time": "a date-time (ISO 8601)",
  email: "an email address",
  uri: "a URI",
  uuid: "a UUID",
};

/** One message for a failed `anyOf`/`oneOf`: what each branch wanted, as alternatives. */
function combinatorMessage(branches: readonly ErrorObject[]): string {
  const wanted = branches.map((branch) => {
    if (branch.keyword === "type") return alternatives(typeNames(branch));
    if (branch.keyword === "format") {
      const format = String((branch.params as { format?: unknown }).format);
      return FORMAT_NAMES[format] ?? `a "${format}" value`;
    }
    return undefined;
  });
  if (wanted.length === 0 || wanted.some((item) => item === undefined)) return "does not match any of the allowed forms";
  return `must be ${alternatives(wanted as string[])}`;
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The JSON pointer (RFC 6901) of a dotted path: `"address.city"` → `"/address/city"`. */
export function pointerOf(path: string): string {
  if (path === "") return "";
  return `/${path.split(".").map((segment) => segment.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
}

/**
 * How many issues an error response lists. Clients fix every field at once, but a hostile body
 * (thousands of unknown keys in 200 KB) must not turn into a multi-megabyte answer; the rest is
 * only counted, in `meta.moreErrors`.
 */
export const MAX_REPORTED_ISSUES = 20;

/**
 * The issues an error response lists (at most `MAX_REPORTED_ISSUES`, in order) and how many it
 * leaves out.
 *
 * @example
 * const { shown, more } = reportedIssues(issues); // more === 0 for 20 issues or fewer
 */
export function reportedIssues<I>(issues: readonly I[]): { shown: I[]; more: number } {
  return { shown: issues.slice(0, MAX_REPORTED_ISSUES), more: Math.max(0, issues.length - MAX_REPORTED_ISSUES) };
}

/**
 * SPEC §7's validation error: status 400, `title: "Request validation failed"`, a `detail`
 * naming each path and message, `source.pointer` at the first problem (a JSON pointer into the
 * body, or `/<name>` plus `source.parameter` for a query parameter) and `meta.validationErrors`,
 * the JSON text of `[{path, message}]`. The code says which rule failed. At most
 * `MAX_REPORTED_ISSUES` are listed; `meta.moreErrors` counts the others.
 *
 * @example
 * throw requestValidationError([{ path: "title", message: "is required" }], "body");
 */
export function requestValidationError(
  issues: readonly ValidationIssue[],
  location: ValidationLocation,
  factory: HttpErrorFactory = location === "body" ? ValidationErrors.INVALID_BODY : ValidationErrors.INVALID_QUERY,
): APIError {
  const { shown, more } = reportedIssues(issues);
  const first = shown[0] ?? { path: "", message: "is invalid" };
  const describe = (issue: ValidationIssue) => `${issue.path || (location === "body" ? "body" : "query")}: ${issue.message}`;
  const source =
    location === "body"
      ? { pointer: pointerOf(first.path) }
      : { pointer: pointerOf(first.path), parameter: first.path.split(".")[0] ?? "" };
  const meta: Record<string, unknown> = { validationErrors: JSON.stringify(shown.map(({ path, message }) => ({ path, message }))) };
  if (more > 0) meta.moreErrors = more;
  return factory({
    detail: shown.map(describe).join("; ") + (more > 0 ? `; and ${more} more` : ""),
    source,
    meta,
  });
}

/** True for an error built by `requestValidationError` (any of its codes). */
export function isRequestValidationError(error: unknown): error is APIError {
  return error instanceof APIError && error.status === 400 && error.title === "Request validation failed";
}
