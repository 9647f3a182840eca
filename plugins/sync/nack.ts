/** Why a mutation was refused (ARCHITECTURE §4), each with its HTTP status. */
export type NackCode = "conflict" | "forbidden" | "validation" | "rate_limited" | "not_found" | "error";

/**
 * The HTTP status of each nack code (`POST /sync/mutate` answers a nack with it).
 *
 * @example
 * res.status(NACK_STATUS[nack.code]).json({ nack });
 */
export const NACK_STATUS: Readonly<Record<NackCode, number>> = Object.freeze({
  conflict: 409,
  forbidden: 403,
  validation: 422,
  rate_limited: 429,
  not_found: 404,
  error: 500,
});

/** A mutation was applied (or had been: a replay answers the original ack). */
export interface SyncAck {
  readonly mutationId: string;
  readonly id: string;
  readonly seq: number;
}

/** A mutation was refused; nothing was written. */
export interface SyncNack {
  readonly mutationId: string;
  readonly code: NackCode;
  /** `conflict`: the entity as the server has it now (absent when it never existed for this caller). */
  readonly serverDoc?: Record<string, unknown>;
  readonly serverSeq?: number;
  readonly serverDeleted?: boolean;
  readonly message?: string;
  readonly retryAfterMs?: number;
}

/** What one mutation came to: `{ack}` or `{nack}` (the HTTP body and batch entry shapes). */
export type MutationOutcome = { readonly ack: SyncAck } | { readonly nack: SyncNack };

/**
 * Builds a nack outcome.
 *
 * @example
 * return nack("m1", "not_found", { message: "No todos entity with this id" });
 */
export function nack(mutationId: string, code: NackCode, extra: Omit<SyncNack, "mutationId" | "code"> = {}): MutationOutcome {
  return { nack: { mutationId, code, ...extra } };
}
