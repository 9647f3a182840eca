import mongoose from "mongoose";
import { APIError } from "../kernel/api-error.js";
import { SvcError } from "../kernel/errors.js";

/** body-parser's errors carry a `type`; these are the ones a client can cause. */
const BODY_ERRORS: Record<string, { status: number; title: string; code: string }> = {
  "entity.too.large": { status: 413, title: "Request body too large", code: "HTTP_PAYLOAD_TOO_LARGE" },
  "entity.parse.failed": { status: 400, title: "Malformed JSON body", code: "HTTP_MALFORMED_BODY" },
  "entity.verify.failed": { status: 400, title: "Request body rejected", code: "HTTP_MALFORMED_BODY" },
  "encoding.unsupported": { status: 415, title: "Unsupported content encoding", code: "HTTP_UNSUPPORTED_ENCODING" },
  "charset.unsupported": { status: 415, title: "Unsupported charset", code: "HTTP_UNSUPPORTED_CHARSET" },
  "request.aborted": { status: 400, title: "Request aborted", code: "HTTP_REQUEST_ABORTED" },
  "request.size.invalid": { status: 400, title: "Request size mismatch", code: "HTTP_MALFORMED_BODY" },
  "stream.encoding.set": { status: 500, title: "Internal server error", code: "HTTP_INTERNAL" },
  "parameters.too.many": { status: 413, title: "Too many parameters", code: "HTTP_PAYLOAD_TOO_LARGE" },
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
    const fields = Object.values(error.errors);
    return new APIError({
      status: 400,
      title: "Validation failed",
      code: "VALIDATION_FAILED",
      detail: fields.map((field) => `${field.path}: ${field.message}`).join("; ") || error.message,
      source: fields[0] ? { pointer: bodyPointer(fields[0].path) } : undefined,
      meta: { fields: fields.map((field) => ({ path: field.path, message: field.message, kind: field.kind })) },
      cause: error,
    });
  }
  if (error instanceof mongoose.Error.CastError) {
    return new APIError({
      status: 400,
      title: "Invalid value",
      code: "CAST_FAILED",
      detail: `${error.path}: cannot use ${describeValue(error.value)} as ${error.kind}`,
      source: { pointer: bodyPointer(error.path) },
      cause: error,
    });
  }
  if (error instanceof mongoose.Error.StrictModeError) {
    return new APIError({
      status: 400,
      title: "Unknown field",
      code: "UNKNOWN_FIELD",
      detail: `${error.path} is not in the schema`,
      source: { pointer: bodyPointer(error.path) },
      cause: error,
    });
  }
  if (isDuplicateKeyError(error)) {
    const fields = Object.keys(error.keyValue ?? error.keyPattern ?? {});
    return new APIError({
      status: 409,
      title: "Duplicate value",
      code: "DUPLICATE_KEY",
      detail: fields.length ? `A record with the same ${fields.join(", ")} already exists` : "Duplicate value",
      meta: { fields },
      cause: error,
    });
  }
  if (error instanceof SvcError && error.status < 500) {
    return new APIError({ status: error.status, title: error.message, code: error.code, cause: error });
  }
  return new APIError({ status: 500, title: "Internal server error", code: "HTTP_INTERNAL", cause: error });
}

function bodyParserError(error: unknown): APIError | undefined {
  if (typeof error !== "object" || error === null || !("type" in error)) return undefined;
  const known = BODY_ERRORS[String((error as { type: unknown }).type)];
  return known ? new APIError({ ...known, cause: error }) : undefined;
}

interface DuplicateKeyError {
  code: 11000;
  keyValue?: Record<string, unknown>;
  keyPattern?: Record<string, unknown>;
}

function isDuplicateKeyError(error: unknown): error is DuplicateKeyError {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === 11000;
}

function describeValue(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * A JSON pointer (RFC 6901) into the request body for a mongoose path: request bodies are the
 * document's fields themselves (not wrapped in `data`), as the REST layer's validation errors
 * point too.
 */
function bodyPointer(mongoosePath: string): string {
  return `/${mongoosePath.split(".").map((segment) => segment.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
}
