import { defineErrors } from "../../kernel/errors.js";

/**
 * What an `Idempotency-Key` request can be refused with, and the start-up mistake in its settings.
 *
 * @example
 * IdempotencyErrors.KEY_REUSED({ detail: "…" }).status; // 422
 */
export const IdempotencyErrors = defineErrors("IDEMPOTENCY", {
  /** The header is empty, too long, or holds characters outside printable ASCII. */
  KEY_INVALID: { status: 400, title: "Invalid Idempotency-Key" },
  /** The route requires the header (`required: true`) and the request has none. */
  KEY_REQUIRED: { status: 400, title: "Idempotency-Key required" },
  /** The key was used before for a different request (another route or another body). */
  KEY_REUSED: { status: 422, title: "Idempotency-Key reused" },
  /** A request with this key is still being answered; `Retry-After` says when to ask again. */
  IN_PROGRESS: { status: 409, title: "Request in progress" },
  INVALID_OPTION: {
    message: (where: string, problem: string) => `${where}: ${problem}`,
  },
});
