/**
 * The user-document field (hidden, `select: false`) that counts ended sign-ins, and the access
 * token claim that carries the count a token was issued under. A token whose claim differs from
 * the user's current count belongs to a sign-in that has ended (`AUTH_TOKEN_REVOKED`). Both are 0
 * (absent) until the first `setPassword`, so tokens and users from before the field existed stay
 * valid.
 *
 * @example
 * { sub: "66f0…", sv: 2 } // issued after the user's second password change
 */
export const SIGN_IN_VERSION = "signInVersion";

/** The access-token claim (reserved: a host's `generateJWTPayload` cannot set it). */
export const SIGN_IN_VERSION_CLAIM = "sv";

/** The version a stored value or a claim says: its non-negative integer, else 0 (absent). */
export function signInVersionOf(value: unknown): number {
  return Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : 0;
}
