import type { Schema } from "mongoose";

/** The field `emailVerificationPlugin` adds: when the user proved they read mail at their email. */
export const EMAIL_VERIFIED_AT = "emailVerifiedAt";

/**
 * Adds `emailVerifiedAt` to a user schema: when the user followed an email-verification link (or a
 * password-reset link, which proves the same), unset until then. Read-only for every route; the
 * auth plugin's `emailVerification` option needs it. Check it where a verified address matters:
 * `req.user.emailVerifiedAt` is set on signed-in requests.
 *
 * @example
 * userSchema.plugin(baseUserPlugin);
 * userSchema.plugin(emailVerificationPlugin);
 */
export function emailVerificationPlugin(schema: Schema): void {
  schema.add({
    [EMAIL_VERIFIED_AT]: {
      type: Date,
      readOnly: true,
      description: "When the user proved they read mail at their email (a verification or password-reset link); unset until then",
    },
  });
}
