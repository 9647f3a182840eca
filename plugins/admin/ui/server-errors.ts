import { ApiError } from "./api-client";
import type { ApiErrorEntry } from "./api-types";

/** The top-level field a JSON pointer (`/title`, `/data/title`, `/tags/0`) is about. */
function fieldOfPointer(pointer: string | undefined, known: ReadonlySet<string>): string | undefined {
  if (!pointer) return undefined;
  const segments = pointer.split("/").slice(1).map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (segments[0] === "data" && segments.length > 1 && !known.has("data")) segments.shift();
  return segments[0] && known.has(segments[0]) ? segments[0] : undefined;
}

function issuesOf(entry: ApiErrorEntry): { path: string; message: string }[] {
  const meta = entry.meta ?? {};
  // Request validation: meta.validationErrors is the JSON text of [{path, message}].
  if (typeof meta.validationErrors === "string") {
    try {
      const parsed = JSON.parse(meta.validationErrors) as unknown;
      if (Array.isArray(parsed)) return parsed.filter((issue) => typeof issue?.path === "string" && typeof issue?.message === "string");
    } catch {
      // Not ours to fix: fall back to the pointer.
    }
  }
  // The model's own validation: meta.fields is [{path, message, kind}]; a duplicate key's is [name].
  if (Array.isArray(meta.fields)) {
    return meta.fields.flatMap((field: unknown) => {
      if (typeof field === "string") return [{ path: field, message: entry.detail ?? entry.title ?? "is not accepted" }];
      const issue = field as { path?: unknown; message?: unknown };
      return typeof issue?.path === "string" && typeof issue.message === "string" ? [{ path: issue.path, message: issue.message }] : [];
    });
  }
  return [];
}

/**
 * An API error as ra-core's form errors: `{field: message}` for every field of the form the
 * answer names (by `meta.validationErrors`, `meta.fields` or `source.pointer`), plus
 * `root.serverError` with the whole message, so the form says what went wrong even when the
 * field is not on it.
 */
export function formErrorsOf(error: unknown, fieldNames: readonly string[]): Record<string, unknown> | undefined {
  if (!(error instanceof ApiError) || error.status === 401 || error.status === 0) return undefined;
  const known = new Set(fieldNames);
  const errors: Record<string, unknown> = {};
  for (const entry of error.entries) {
    for (const issue of issuesOf(entry)) {
      const [head, ...rest] = issue.path.split(".");
      const name = head === "data" && rest.length > 0 && !known.has("data") ? rest.shift() : head;
      if (name && known.has(name) && errors[name] === undefined) errors[name] = rest.length > 0 ? `${rest.join(".")}: ${issue.message}` : issue.message;
    }
    const pointed = fieldOfPointer(entry.source?.pointer, known);
    if (pointed && errors[pointed] === undefined) errors[pointed] = entry.detail ?? entry.title ?? "is not accepted";
  }
  errors.root = { serverError: error.message };
  return errors;
}
