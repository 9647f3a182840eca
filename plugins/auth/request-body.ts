import { AuthConfigErrors, AuthErrors } from "./errors.js";
import { GITHUB_FIELDS } from "./github-user-plugin.js";

/** Fields no client may ever set through signup or `PATCH /auth/me`, whatever the host allows. */
export const FORBIDDEN_PROFILE_FIELDS: readonly string[] = [
  "_id",
  "id",
  "__v",
  "admin",
  "disabled",
  "deleted",
  "email",
  "password",
  "passwordHash",
  "hash",
  "salt",
  "created",
  "updated",
  "federatedId",
  ...GITHUB_FIELDS,
];

export interface PasswordPolicy {
  /** Default 8. */
  minLength?: number;
  /** Default 256 (the KDF's cost does not depend on it, but the request body does). */
  maxLength?: number;
}

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Checks the host's `profileFields` at start: framework-managed fields (`admin`, `disabled`,
 * `deleted`, `email`, ids, secrets, linked identities) can never be opened to clients.
 *
 * @example
 * checkProfileFields(["name", "avatarColor"]); // ok
 * checkProfileFields(["admin"]);               // throws AUTH_CONFIG_PROFILE_FIELD_FORBIDDEN
 */
export function checkProfileFields(fields: readonly string[], extraForbidden: readonly string[] = []): string[] {
  for (const field of fields) {
    const root = field.split(".")[0]!;
    if ([...FORBIDDEN_PROFILE_FIELDS, ...extraForbidden].includes(root) || field.startsWith("$")) {
      throw AuthConfigErrors.PROFILE_FIELD_FORBIDDEN(field);
    }
  }
  return [...fields];
}

/** The request body as a plain object, or 400 `AUTH_INVALID_BODY`. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw AuthErrors.INVALID_BODY("Expected a JSON object");
  return body as Record<string, unknown>;
}

/** A normalised (trimmed, lower-case) email, or 400. */
export function readEmail(body: Record<string, unknown>): string {
  const email = body.email;
  if (typeof email !== "string" || email.length > 254 || !EMAIL_SHAPE.test(email.trim())) {
    throw AuthErrors.INVALID_BODY("email must be an email address", { field: "email" });
  }
  return email.trim().toLowerCase();
}

/** The password as sent (never trimmed), or 400. Policy is applied only when `policy` is given (signup). */
export function readPassword(body: Record<string, unknown>, policy?: PasswordPolicy): string {
  const password = body.password;
  if (typeof password !== "string" || password.length === 0 || password.length > 1024) {
    throw AuthErrors.INVALID_BODY("password must be a non-empty string", { field: "password" });
  }
  if (policy) {
    const min = policy.minLength ?? 8;
    const max = policy.maxLength ?? 256;
    if ([...password].length < min || password.length > max) {
      throw AuthErrors.WEAK_PASSWORD(`password must be ${min} to ${max} characters`, { field: "password", minLength: min, maxLength: max });
    }
  }
  return password;
}

/**
 * The profile fields of a body: every key outside `ignore` must be one the host allows, or the
 * request is refused with 400 `AUTH_FIELD_NOT_ALLOWED` (nothing is written). Refusing rather than
 * silently dropping tells an honest client about its mistake and gives an attacker nothing.
 *
 * @example
 * pickProfileFields({ name: "Ada", admin: true }, ["name"]); // throws: admin is not allowed
 */
export function pickProfileFields(
  body: Record<string, unknown>,
  allowed: readonly string[],
  ignore: readonly string[] = [],
): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (ignore.includes(key)) continue;
    if (!allowed.includes(key) || FORBIDDEN_PROFILE_FIELDS.includes(key)) {
      throw AuthErrors.FIELD_NOT_ALLOWED(`${key} cannot be set`, { field: key });
    }
    if (containsOperatorKey(value)) throw AuthErrors.FIELD_NOT_ALLOWED(`${key} contains a $-prefixed key`, { field: key });
    picked[key] = value;
  }
  return picked;
}

function containsOperatorKey(value: unknown, depth = 0): boolean {
  if (depth > 16 || value === null || typeof value !== "object") return false;
  return Object.entries(value as Record<string, unknown>).some(
    ([key, nested]) => key.startsWith("$") || key.includes(".") || containsOperatorKey(nested, depth + 1),
  );
}
