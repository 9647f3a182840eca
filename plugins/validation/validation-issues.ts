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
 * missing or unknown property, the property itself rather than its parent object).
 *
 * @example
 * fromAjvErrors(validate.errors ?? []); // [{ path: "title", message: "must be string", keyword: "type" }]
 */
export function fromAjvErrors(errors: readonly ErrorObject[]): ValidationIssue[] {
  return errors.map((error) => {
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
    }
    return { path: segments.join("."), message, keyword: error.keyword };
  });
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
 * SPEC §7's validation error: status 400, `title: "Request validation failed"`, a `detail`
 * naming each path and message, `source.pointer` at the first problem (a JSON pointer into the
 * body, or `/<name>` plus `source.parameter` for a query parameter) and `meta.validationErrors`,
 * the JSON text of `[{path, message}]`. The code says which rule failed.
 *
 * @example
 * throw requestValidationError([{ path: "title", message: "is required" }], "body");
 */
export function requestValidationError(
  issues: readonly ValidationIssue[],
  location: ValidationLocation,
  factory: HttpErrorFactory = location === "body" ? ValidationErrors.INVALID_BODY : ValidationErrors.INVALID_QUERY,
): APIError {
  const first = issues[0] ?? { path: "", message: "is invalid" };
  const describe = (issue: ValidationIssue) => `${issue.path || (location === "body" ? "body" : "query")}: ${issue.message}`;
  const source =
    location === "body"
      ? { pointer: pointerOf(first.path) }
      : { pointer: pointerOf(first.path), parameter: first.path.split(".")[0] ?? "" };
  return factory({
    detail: issues.map(describe).join("; "),
    source,
    meta: { validationErrors: JSON.stringify(issues.map(({ path, message }) => ({ path, message }))) },
  });
}

/** True for an error built by `requestValidationError` (any of its codes). */
export function isRequestValidationError(error: unknown): error is APIError {
  return error instanceof APIError && error.status === 400 && error.title === "Request validation failed";
}
