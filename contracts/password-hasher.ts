import { token } from "../kernel/container.js";

/**
 * The password-hashing port. The auth plugin binds `PASSWORD_HASHER` to the scrypt adapter
 * (`adapters/password-hasher/scrypt.ts`); hosts may swap in another KDF (argon2...) with
 * `override`, and every adapter passes the shared conformance suite
 * (`adapters/conformance/password-hasher.ts`, published as `svc/testing/conformance`): salted hashes,
 * Unicode normal forms of one password verify alike, a malformed stored value verifies false
 * (never throws). The stored form records the adapter's parameters, so `needsRehash` can upgrade
 * old hashes at the next login.
 *
 * @example
 * const hasher = ctx.resolve(PASSWORD_HASHER);
 * const stored = await hasher.hash("correct horse battery staple");
 * await hasher.verify("correct horse battery staple", stored); // true
 * if (hasher.needsRehash(stored)) await save(await hasher.hash(password));
 */
export interface PasswordHasher {
  /** A salted hash of `password` in the adapter's self-describing stored form. */
  hash(password: string): Promise<string>;
  /** Constant-time comparison; false (never a throw) for a malformed or foreign stored hash. */
  verify(password: string, stored: string): Promise<boolean>;
  /** True when `stored` was made with weaker parameters than the current ones (or is malformed). */
  needsRehash(stored: string): boolean;
}

export const PASSWORD_HASHER = token<PasswordHasher>("auth.PasswordHasher");
