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
 * Client errors raised below the app's own code carry nothing reliable but a 4xx `status` (or
 * `statusCode`): the router's failed percent-decoding of a path parameter, a body parser's
 * stream error, a third-party middleware's `http-errors`. The status picks the code; one without
 * a meaning of its own in the catalogue is answered 400 `HTTP_BAD_REQUEST`, since every code has
 * one status.
 */
const CLIENT_STATUS_ERRORS: Readonly<Record<number, HttpErrorFactory>> = {
  400: HttpErrors.BAD_REQUEST,
  401: HttpErrors.UNAUTHENTICATED,
  403: HttpErrors.FORBIDDEN,
  404: HttpErrors.NOT_FOUND,
  413: HttpErrors.PAYLOAD_TOO_LARGE,
  415: HttpErrors.UNSUPPORTED_MEDIA_TYPE,
};

/**
 * Turns any thrown value into the `APIError` the client sees. Known client mistakes (bad JSON,
 * oversize bodies, malformed paths, mongoose validation and cast errors, duplicate keys, any
 * error carrying a 4xx status) become 4xx with field details; anything unrecognised — a 5xx
 * status or none — becomes an opaque 500 whose details only reach the log.
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
  // A save of a loaded document raced another write (the app's own code: REST routes redo or answer these themselves).
  if (error instanceof mongoose.Error.VersionError) {
    return DatabaseErrors.STALE_DOCUMENT({ detail: "The record changed since it was loaded; load it again", cause: error });
  }
  if (error instanceof mongoose.Error.DocumentNotFoundError) {
    return DatabaseErrors.DOCUMENT_GONE({ detail: "The record was deleted", cause: error });
  }
  if (error instanceof SvcError && error.status < 500) {
    return new APIError({ status: error.status, title: error.message, code: error.code, cause: error });
  }
  return clientStatusError(error) ?? HttpErrors.INTERNAL({ cause: error });
}

function clientStatusError(error: unknown): APIError | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const code = status ?? statusCode;
  if (typeof code !== "number" || !Number.isInteger(code) || code < 400 || code > 499) return undefined;
  // The router's own message quotes the segment; the answer never echoes what was sent.
  if (error instanceof URIError) return HttpErrors.MALFORMED_PATH({ detail: "A path segment is not valid percent-encoding", cause: error });
  return (CLIENT_STATUS_ERRORS[code] ?? HttpErrors.BAD_REQUEST)({ cause: error });
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
