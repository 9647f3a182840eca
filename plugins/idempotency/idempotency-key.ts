import { createHash } from "node:crypto";
import type { Request } from "express";
import { IdempotencyErrors } from "./errors.js";

/** The request header a client names a retryable request with (IETF draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

/** The response header a replayed answer carries, so clients can tell (Stripe's name for it). */
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

/** Keys are bounded printable ASCII: a UUID, a ULID or any client-made token up to 255 characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const KEY = /^[\x21-\x7E]+$/;
const RESERVED = /[",\\]/;

/**
 * Reads a request's `Idempotency-Key`: the bare token clients usually send, or the draft's
 * structured-field string (`"…"`). Absent → undefined. Throws 400 `IDEMPOTENCY_KEY_INVALID` for
 * an empty, over-long or non-ASCII key, and for a header sent twice (Node joins those with a
 * comma, which a key may not hold).
 *
 * @example
 * readIdempotencyKey(req.headers["idempotency-key"]); // "8e03978e-40d5-43e8-bc93-6894a57f9324"
 */
export function readIdempotencyKey(header: string | readonly string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== "string") throw invalid("it was sent more than once");
  let key = header.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  if (key.length === 0) throw invalid("it is empty");
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw invalid(`it is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  if (!KEY.test(key) || RESERVED.test(key)) throw invalid('use printable ASCII without spaces, quotes, backslashes or commas (e.g. a UUID); a header sent twice also reads as one with a comma');
  return key;
}

function invalid(why: string) {
  return IdempotencyErrors.KEY_INVALID({ detail: `${IDEMPOTENCY_KEY_HEADER}: ${why}`, source: { parameter: IDEMPOTENCY_KEY_HEADER } });
}

/**
 * What makes two requests "the same" for a key: method, URL (with its query) and the body's exact
 * bytes (`req.rawBody`, kept by the app's JSON parser; the parsed body re-serialised otherwise).
 * A retry resends all three unchanged.
 *
 * @example
 * requestFingerprint(req); // "3b0c…" (hex SHA-256)
 */
export function requestFingerprint(req: Pick<Request, "method" | "originalUrl" | "body" | "rawBody">): string {
  const hash = createHash("sha256").update(`${req.method} ${req.originalUrl}\n`);
  hash.update(req.rawBody ?? JSON.stringify(req.body ?? null) ?? "");
  return hash.digest("hex");
}

/**
 * Whose key it is: a signed-in user's keys are theirs alone, an anonymous caller's are its IP's.
 *
 * @example
 * idempotencyScope(req); // "user:65f0…" or "ip:203.0.113.7"
 */
export function idempotencyScope(req: Pick<Request, "user" | "ip">): string {
  return req.user ? `user:${req.user.id}` : `ip:${req.ip ?? "unknown"}`;
}
