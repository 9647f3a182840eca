import { AuthErrors } from "../errors.js";
import { MANAGED_USER_FIELDS } from "../../../contracts/user-fields.js";

/**
 * Fields no client may ever set through sign-up or `PATCH /auth/me`, whatever the host allows:
 * they are managed by the framework (flags, roles, ids, timestamps, secrets, linked identities). A body
 * naming one is refused with 400 `VALIDATION_READ_ONLY_FIELD`.
 */
export const FORBIDDEN_PROFILE_FIELDS: readonly string[] = MANAGED_USER_FIELDS;

/**
 * Checks the host's `profileFields` at start: framework-managed fields (`admin`, `roles`, `disabled`,
 * `deleted`, `email`, ids, secrets, linked identities) can never be opened to clients.
 *
 * @example
 * checkProfileFields(["name", "avatarColor"]); // ["name", "avatarColor"]
 * checkProfileFields(["admin"]);               // throws AUTH_PROFILE_FIELD_FORBIDDEN
 */
export function checkProfileFields(fields: readonly string[]): string[] {
  for (const field of fields) {
    const root = field.split(".")[0]!;
    if (FORBIDDEN_PROFILE_FIELDS.includes(root) || field.startsWith("$")) throw AuthErrors.PROFILE_FIELD_FORBIDDEN(field);
  }
  return [...fields];
}
