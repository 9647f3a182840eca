import { defineErrors } from "../../kernel/errors.js";

/**
 * Request validation errors, shared by every plugin that checks input (REST, auth, feature flags
 * and the ones to come). All but `FAILED` and `CAST_FAILED` carry SPEC §7's body
 * (`title: "Request validation failed"`, `source.pointer`, `meta.validationErrors`); the code says
 * which rule failed.
 *
 * @example
 * throw requestValidationError([{ path: "title", message: "is required" }], "body"); // VALIDATION_INVALID_BODY
 */
export const ValidationErrors = defineErrors("VALIDATION", {
  /** The body failed its schema (types, enums, required fields...). */
  INVALID_BODY: { status: 400, title: "Request validation failed" },
  /** A query parameter is malformed (limit, page, sort, a value that does not cast...). */
  INVALID_QUERY: { status: 400, title: "Request validation failed" },
  /** The body names a field the resource does not have (or one a client may never set). */
  UNKNOWN_FIELD: { status: 400, title: "Request validation failed" },
  /** The body writes a field clients may not write (owner, timestamps, `readOnly` fields). */
  READ_ONLY_FIELD: { status: 400, title: "Request validation failed" },
  /** A body key starts with `$` (an operator injection attempt) or contains NUL, or the body nests too deep. */
  OPERATOR_IN_BODY: { status: 400, title: "Request validation failed" },
  /** The model's own validation (mongoose validators) refused the document. */
  FAILED: { status: 400, title: "Validation failed" },
  /** A value cannot be cast to the field's type. */
  CAST_FAILED: { status: 400, title: "Invalid value" },
});
