import { APIError } from "../../kernel/api-error.js";

/** REST's query-string name of a filter operator: `priority[$gte]`. */
const OPERATOR_KEY = /^(.+)\[\$(\w+)\]$/;
/** An operator named in a message (`cannot use $gt on this field`), which MCP names without `$`. */
const OPERATOR_NAME = /\$(eq|ne|gt|gte|lt|lte|in|nin|exists|regex)\b/g;

/**
 * A list route's refusal of its query string, with each path given as the list tool's argument
 * (`priority[$gte]` → `filter.priority.gte`, `done` → `filter.done`) and operators named without
 * `$`: REST's names would lead an assistant to send `$` keys, which every request refuses. Same
 * code, status and title; anything else passes through unchanged.
 *
 * @example
 * listErrorInArguments(error, new Set(["priority"])); // detail "filter.priority.gte: is not a valid Number"
 */
export function listErrorInArguments(error: unknown, filterNames: ReadonlySet<string>): unknown {
  if (!(error instanceof APIError) || error.source?.parameter === undefined || typeof error.meta?.validationErrors !== "string") return error;
  const argument = (path: string) => {
    const operator = OPERATOR_KEY.exec(path);
    if (operator) return `filter.${operator[1]}.${operator[2]}`;
    return filterNames.has(path) ? `filter.${path}` : path;
  };
  const issues = (JSON.parse(error.meta.validationErrors) as Array<{ path: string; message: string }>).map(({ path, message }) => ({
    path: argument(path),
    message: message.replace(OPERATOR_NAME, "$1"),
  }));
  const more = typeof error.meta.moreErrors === "number" ? error.meta.moreErrors : 0;
  const first = issues[0]?.path ?? "";
  return new APIError({
    status: error.status,
    title: error.title,
    code: error.code,
    detail: issues.map(({ path, message }) => `${path}: ${message}`).join("; ") + (more > 0 ? `; and ${more} more` : ""),
    source: { pointer: `/${first.split(".").join("/")}`, parameter: first.split(".")[0]! },
    meta: { ...error.meta, validationErrors: JSON.stringify(issues) },
    cause: error,
  });
}
