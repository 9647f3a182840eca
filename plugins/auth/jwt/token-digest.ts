import { createHash, timingSafeEqual } from "node:crypto";

/**
 * SHA-256 of a secret value (a refresh token, a one-time code, a PKCE verifier), base64url. Only
 * digests are stored, so a database leak yields nothing that can be presented; the S256 code
 * challenge of RFC 7636 is the same digest of the verifier.
 *
 * @example
 * await model.create({ _id: tokenDigest(code), ... });
 * tokenDigest(verifier) === codeChallenge; // PKCE S256
 */
export function tokenDigest(value: string): string {
  return createHash("sha256").update(value).digest("base64url");
}

/**
 * Constant-time string equality (for nonces and digests).
 *
 * @example
 * safeEqual(cookieNonce, state.nonce);
 */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
