import type { OperationObject, ResponseObject } from "openapi3-ts/oas31";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH } from "./idempotency-key.js";
import type { IdempotencyOptions } from "./idempotency-middleware.js";

const ERROR_RESPONSE = { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } };

/**
 * Documents what `idempotent()` adds to an operation: the `Idempotency-Key` header parameter, the
 * `Idempotent-Replayed` header on its answers, 409 (still in progress, beside the operation's own
 * conflicts) and 422 (key reused). `modelRouter` applies it to creates.
 *
 * @example
 * ctx.openapi.addOperation("post", "/payments", documentIdempotency({ summary: "Charge", responses: { 201: charged } }, { required: true }));
 */
export function documentIdempotency(operation: OperationObject, options: IdempotencyOptions = {}): OperationObject {
  const responses = { ...operation.responses };
  for (const [status, response] of Object.entries(responses)) {
    if (!status.startsWith("2") || "$ref" in (response as object)) continue;
    const answer = response as ResponseObject;
    responses[status] = {
      ...answer,
      headers: { ...answer.headers, [IDEMPOTENT_REPLAYED_HEADER]: { description: `\`true\` when this is the stored answer to an earlier request with the same ${IDEMPOTENCY_KEY_HEADER}`, schema: { type: "string", enum: ["true"] } } },
    };
  }
  responses["409"] = {
    description: `${conflictOf(responses["409"])}a request with the same ${IDEMPOTENCY_KEY_HEADER} is still being answered (IDEMPOTENCY_IN_PROGRESS; retry after the Retry-After header's seconds to get its answer)`,
    content: ERROR_RESPONSE,
  };
  responses["422"] = { description: `The ${IDEMPOTENCY_KEY_HEADER} was used for another request: another route or another body (IDEMPOTENCY_KEY_REUSED)`, content: ERROR_RESPONSE };
  return {
    ...operation,
    parameters: [
      ...(operation.parameters ?? []),
      {
        name: IDEMPOTENCY_KEY_HEADER,
        in: "header",
        required: options.required === true,
        description:
          `A key of the client's choosing (a new UUID per request), sent again unchanged on the request's retries: a retry gets the first answer ` +
          `(marked ${IDEMPOTENT_REPLAYED_HEADER}) instead of running again. Keys are per caller and kept ${options.expiresIn ?? "24h"}. ` +
          `A missing${options.required === true ? "" : " (when required)"} or malformed key is 400 (IDEMPOTENCY_KEY_REQUIRED, IDEMPOTENCY_KEY_INVALID).`,
        schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
      },
    ],
    responses,
  };
}

/** The operation's own 409, kept in the description the idempotency 409 now shares. */
function conflictOf(existing: unknown): string {
  if (existing === undefined) return "Conflict: ";
  const own = (existing as Partial<ResponseObject>).description;
  // A reference is the shared Conflict response: a taken unique value.
  return `${(own ?? "A unique value is already taken (DATABASE_DUPLICATE_KEY)").replace(/\.$/, "")}; or `;
}
