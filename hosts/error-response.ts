import mongoose from "mongoose";
import { DatabaseErrors } from "../adapters/database/errors.js";
import { isDuplicateKeyError } from "../contracts/database.js";
import { APIError } from "../kernel/api-error.js";
import type { HttpErrorFactory } from "../kernel/errors.js";
import { HttpErrors } from "../kernel/http-errors.js";
import { SvcError } from "../kernel/svc-error.js";
import {
  castMessage,
  mongooseValidationIssues,
  pointerOf,
  reportedIssues,
  requestValidationError,
  ValidationErrors,
} from "../plugins/validation/index.js";

/** body-parser's errors carry a `type`; these are the ones a client can cause. */
const BODY_ERRORS: Record<string, HttpErrorFactory> = {
  "entity.too.large": HttpErrors.PAYLOAD_TOO_LARGE,
  "entity.parse.failed": HttpErrors.MALFORMED_BODY,
  "entity.verify.failed": HttpErrors.MALFORMED_BODY,
  "encoding.unsupported": HttpErrors.UNSUPPORTED_ENCODING,
  "charset.unsupported": HttpErrors.UNSUPPORTED_CHARSET,
  "request.aborted": HttpErrors.REQUEST_ABORTED,
  "request.size.invalid": HttpErrors.MALFORMED_BODY,
  "stream.encoding.set": HttpErrors.INTERNAL,
  "parameters.too.many": HttpErrors.PAYLOAD_TOO_LARGE,
};

/**
 * Turns any thrown value into the `APIError` the client sees. Known client mistakes (bad JSON,
 * oversize bodies, mongoose validation and cast errors, duplicate keys) become 4xx with field
 * details; anything unrecognised becomes an opaque 500 whose details only reach the log.
 *
 * @example
 * const apiError = toAPIError(error); // res.status(apiError.status)
 */
export function toAPIError(error: unknown): APIError {
  if (error instanceof APIError) return error;

  const bodyError = bodyParserError(error);
  if (bodyError) return bodyError;

  if (error instanceof mongoose.Error.ValidationError) {
    // One entry per path, in the request validator's wording (never quoting the value), capped
    // like request validation errors.
    const { shown, more } = reportedIssues(mongooseValidationIssues(error));
    const meta: Record<string, unknown> = { fields: shown.map((issue) => ({ path: issue.path, message: issue.message, kind: issue.keyword })) };
    if (more > 0) meta.moreErrors = more;
    return ValidationErrors.FAILED({
      detail: shown.map((issue) => `${issue.path}: ${issue.message}`).join("; ") + (more > 0 ? `; and ${more} more` : "") || "The document is invalid",
      source: shown[0] ? { pointer: pointerOf(shown[0].path) } : undefined,
      meta,
      cause: error,
    });
  }
  if (error instanceof mongoose.Error.CastError) {
    return ValidationErrors.CAST_FAILED({
      detail: `${error.path}: ${castMessage(error.kind)}`,
      source: { pointer: pointerOf(error.path) },
      cause: error,
    });
  }
  if (error instanceof mongoose.Error.StrictModeError) {
    // The same answer as the request validator's for an unknown field.
    return requestValidationError([{ path: error.path, message: "is not a field of this resource", keyword: "additionalProperties" }], "body", ValidationErrors.UNKNOWN_FIELD);
  }
  if (isDuplicateKeyError(error)) {
    const fields = Object.keys(error.keyValue ?? error.keyPattern ?? {});
    return DatabaseErrors.DUPLICATE_KEY({
      detail: fields.length ? `A record with the same ${fields.join(", ")} already exists` : "Duplicate value",
      meta: { fields },
      cause: error,
    });
  }
  if (error instanceof SvcError && error.status < 500) {
    return new APIError({ status: error.status, title: error.message, code: error.code, cause: error });
  }
  return HttpErrors.INTERNAL({ cause: error });
}

function bodyParserError(error: unknown): APIError | undefined {
  if (typeof error !== "object" || error === null || !("type" in error)) return undefined;
  const type = String((error as { type: unknown }).type);
  if (type === "entity.parse.failed" && isJsonScalar((error as { body?: unknown }).body)) {
    // Valid JSON, just not an object (`null`, `42`, `"text"`): the parser's strict mode refuses
    // it, but "malformed" would send the client hunting for a syntax error that is not there.
    return requestValidationError([{ path: "", message: "must be a JSON object", keyword: "type" }], "body");
  }
  const known = BODY_ERRORS[type];
  return known?.({ cause: error });
}

/** True for the text of a JSON value that is neither an object nor an array. */
function isJsonScalar(text: unknown): boolean {
  if (typeof text !== "string") return false;
  const first = text.trimStart()[0];
  if (first === undefined || first === "{" || first === "[") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
