import { AuthErrors } from "../errors.js";

/** The host's password rules for the JWT provider (session auth uses better-auth's 8–256). */
export interface PasswordPolicy {
  /** Default 8 (counted in characters, so an emoji is one). */
  minLength?: number;
  /** Default 256, counted in characters like `minLength` (the KDF's cost does not depend on it, but the request body does). */
  maxLength?: number;
}

/**
 * Applies the policy to a new password (sign-up, `ACCOUNTS.createPasswordUser`/`setPassword`);
 * logins are never judged by it, so tightening the policy locks nobody out. Outside it → 400
 * `AUTH_WEAK_PASSWORD` pointing at `/password`, with the bounds in `meta`.
 *
 * @example
 * checkPasswordPolicy("correct horse battery staple", { minLength: 12 }); // ok
 * checkPasswordPolicy("short", {});                                       // throws AUTH_WEAK_PASSWORD
 */
export function checkPasswordPolicy(password: string, policy: PasswordPolicy): void {
  const minLength = policy.minLength ?? 8;
  const maxLength = policy.maxLength ?? 256;
  // Both bounds in characters (code points), never UTF-16 units: an emoji counts once either way.
  const length = typeof password === "string" ? [...password].length : -1;
  if (length < minLength || length > maxLength) {
    throw AuthErrors.WEAK_PASSWORD({
      detail: `password must be ${minLength} to ${maxLength} characters`,
      source: { pointer: "/password" },
      meta: { minLength, maxLength },
    });
  }
}
