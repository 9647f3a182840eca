import type { Schema } from "mongoose";
import { ENDED_SIGN_INS } from "./ended-sign-ins.js";
import { SIGN_IN_VERSION } from "./sign-in-version.js";

/** Longest address SMTP allows; longer input is refused before it reaches an index. */
const MAX_EMAIL_LENGTH = 254;
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;

/**
 * The fields every user model needs (SPEC §2.2): `email` (trimmed, lower-cased, unique —
 * so unique case-insensitively — and indexed) and `admin` (default false). The unique index is
 * partial, so users without an email (e.g. from a GitHub account with no public email) do not
 * collide with each other. Beside them, the auth plugin's hidden bookkeeping (`select: false`
 * and `readOnly`, so no route, admin screen or schema shows or accepts it): `signInVersion`,
 * which `setPassword` bumps to end every access token issued before, and `endedSignIns`, the
 * sign-ins ended one by one whose access tokens are refused until they lapse.
 *
 * @example
 * const userSchema = new Schema({ name: { type: String, description: "Display name" } }, { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } });
 * userSchema.plugin(baseUserPlugin);
 * userSchema.plugin(isDisabledPlugin);
 */
export function baseUserPlugin(schema: Schema): void {
  schema.add({
    email: {
      type: String,
      trim: true,
      lowercase: true,
      maxlength: MAX_EMAIL_LENGTH,
      match: EMAIL_SHAPE,
      description: "Sign-in email, stored trimmed and lower-case; unique",
    },
    admin: { type: Boolean, default: false, description: "Whether the user is an administrator (Permissions.IsAdmin)" },
    [SIGN_IN_VERSION]: {
      type: Number,
      // Hidden from every read, and never written through a route (REST, admin, sync).
      select: false,
      readOnly: true,
      description: "Bumped when every sign-in of the user ends (setPassword); an access token issued under an older version is refused",
    },
    [ENDED_SIGN_INS]: {
      type: [{ _id: false, sid: { type: String, description: "The sign-in's id" }, until: { type: Date, description: "When its last access token lapses" } }],
      select: false,
      readOnly: true,
      // No empty list written on every new user.
      default: undefined,
      description: "Sign-ins ended one by one (sign-out of a device); their access tokens are refused until they lapse",
    },
  });
  schema.index({ email: 1 }, { unique: true, partialFilterExpression: { email: { $type: "string" } } });
}
