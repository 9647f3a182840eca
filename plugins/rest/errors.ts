import { defineErrors } from "../../kernel/errors.js";

/**
 * The REST layer's errors. Entries with a `title` answer clients (generated routes); entries with
 * a `message` are programmer and start-up mistakes (thrown while building routers or checking
 * models, never in answer to a request). Codes are the contract; titles and messages are for
 * humans. Shared meanings live elsewhere: sign-in required and forbidden are `HttpErrors`, body
 * and query validation failures are `ValidationErrors`.
 *
 * @example
 * throw RestErrors.NOT_FOUND({ detail: "No todo with id 65f..." }); // 404, code REST_NOT_FOUND
 * RestErrors.MODELS_NOT_STRICT("Todo: strict is false").code;     // "REST_MODELS_NOT_STRICT"
 */
export const RestErrors = defineErrors("REST", {
  /** No record with this id (or it is deleted, or outside the caller's query filter). */
  NOT_FOUND: { status: 404, title: "Not found" },
  /** A `pre*` hook returned nothing: the hook refused the operation. */
  HOOK_DENIED: { status: 403, title: "Forbidden" },
  /** A hook threw a plain error: reported as the client's mistake, without internals. */
  HOOK_FAILED: { status: 400, title: "Request rejected" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method not allowed" },
  /**
   * A PATCH or DELETE kept finding an array of the record changed by other writes since it loaded
   * it (mongoose's version check), 10 attempts in a row: writers in other processes.
   */
  STALE_DOCUMENT: { status: 409, title: "Conflict" },
  /** A PATCH or DELETE with `If-Match` found the record at another revision: someone changed it since the client read it. */
  PRECONDITION_FAILED: { status: 412, title: "Precondition failed" },
  /** `If-Match` on a model without revisions (no `optimisticConcurrency: true`): the check cannot be made, so the write is not. */
  IF_MATCH_UNSUPPORTED: { status: 400, title: "If-Match not supported" },
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
