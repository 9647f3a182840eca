import { APIError, type ErrorSource } from "../../kernel/api-error.js";
import { defineErrors } from "../../kernel/errors.js";

/** Extra fields an HTTP-facing REST error may carry. */
export interface RestErrorDetails {
  detail?: string;
  source?: ErrorSource;
  meta?: Record<string, unknown>;
  cause?: unknown;
}

/** A catalogue entry that builds `APIError`s; `.code` and `.status` let tests compare. */
export type ApiErrorFactory = ((details?: RestErrorDetails) => APIError) & {
  readonly code: string;
  readonly status: number;
};

function apiErrors<const Specs extends Record<string, { status: number; title: string }>>(
  prefix: string,
  specs: Specs,
): { readonly [K in keyof Specs]: ApiErrorFactory } {
  const catalogue: Record<string, ApiErrorFactory> = {};
  for (const [key, spec] of Object.entries(specs)) {
    const code = `${prefix}_${key}`;
    // 4xx are the client's doing: never worth an error-tracker event.
    const factory = (details: RestErrorDetails = {}) =>
      new APIError({ ...spec, ...details, code, disableExternalErrorTracking: spec.status < 500 });
    catalogue[key] = Object.assign(factory, { code, status: spec.status });
  }
  return catalogue as { readonly [K in keyof Specs]: ApiErrorFactory };
}

/**
 * The errors generated REST routes answer with. Codes are the contract (clients and tests match
 * on them); titles are for humans. Validation failures all carry SPEC §7's body
 * (`title: "Request validation failed"`, `source.pointer`, `meta.validationErrors`); their codes
 * say which rule failed.
 *
 * @example
 * throw RestErrors.NOT_FOUND({ detail: "No todo with id 65f..." }); // 404, code REST_NOT_FOUND
 */
export const RestErrors = apiErrors("REST", {
  NOT_FOUND: { status: 404, title: "Not found" },
  UNAUTHENTICATED: { status: 401, title: "Authentication required" },
  FORBIDDEN: { status: 403, title: "Forbidden" },
  HOOK_DENIED: { status: 403, title: "Forbidden" },
  HOOK_FAILED: { status: 400, title: "Request rejected" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method not allowed" },
  /** The body failed its schema (types, enums, required fields...). */
  INVALID_BODY: { status: 400, title: "Request validation failed" },
  /** The body names a field the schema does not have. */
  UNKNOWN_FIELD: { status: 400, title: "Request validation failed" },
  /** The body writes a field clients may not write (owner, timestamps, `readOnly` fields). */
  READ_ONLY_FIELD: { status: 400, title: "Request validation failed" },
  /** A body key starts with `$` (an operator injection attempt). */
  OPERATOR_IN_BODY: { status: 400, title: "Request validation failed" },
  /** A query parameter is malformed (limit, page, sort, a value that does not cast...). */
  INVALID_QUERY: { status: 400, title: "Request validation failed" },
  /** A filter names a field outside the router's `queryFields`. */
  QUERY_FIELD_NOT_ALLOWED: { status: 400, title: "Request validation failed" },
  /** A filter uses an operator outside the allowlist. */
  OPERATOR_NOT_ALLOWED: { status: 400, title: "Request validation failed" },
  /** `validateResponses` is on and a generated response does not match its documented schema. */
  INVALID_RESPONSE: { status: 500, title: "Internal server error" },
  /** `findExactlyOne` matched nothing. */
  NO_MATCH: { status: 404, title: "Not found" },
  /** `findExactlyOne`, `findOneOrNone` or `upsert` matched several documents. */
  SEVERAL_MATCHES: { status: 500, title: "Internal server error" },
});

/**
 * Programmer and start-up mistakes of the REST layer (thrown while building routers or checking
 * models, never in answer to a request).
 *
 * @example
 * RestConfigErrors.MODELS_NOT_STRICT("Todo: strict is false").code; // "REST_MODELS_NOT_STRICT"
 */
export const RestConfigErrors = defineErrors("REST", {
  MODELS_NOT_STRICT: {
    message: (report: string) =>
      `These models must use strict mode (strict: "throw" or true) and toJSON/toObject with virtuals: true:\n${report}`,
  },
  UNKNOWN_PATH: {
    message: (model: string, option: string, path: string) => `${model}: ${option} names "${path}", which is not in the schema`,
  },
  INVALID_OPTION: {
    message: (model: string, option: string, reason: string) => `${model}: invalid ${option}: ${reason}`,
  },
  UNMOUNTED_ROUTER: {
    message: (name: string) =>
      `"${name}" was created without a path and mounted outside setupServer's addRoutes: ` +
      `use modelRouter(path, Model, options) instead`,
  },
});
