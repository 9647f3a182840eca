import { defineErrors } from "../../kernel/errors.js";

/**
 * The auth plugin's catalogue (codes `AUTH_<KEY>`). Entries with a `title` answer clients; titles
 * are deliberately generic where detail would help an attacker (a wrong password and an unknown
 * email share `AUTH_INVALID_CREDENTIALS`). Entries with a `message` stop a misconfigured app at
 * start. "Sign in required" is `HTTP_UNAUTHENTICATED` and malformed bodies are `VALIDATION_*`,
 * as on every other route.
 *
 * @example
 * throw AuthErrors.TOKEN_EXPIRED();            // 401, code "AUTH_TOKEN_EXPIRED"
 * throw AuthErrors.SAME_SECRETS("A", "B");      // SvcError "AUTH_SAME_SECRETS" (start-up)
 */
export const AuthErrors = defineErrors("AUTH", {
  /** Wrong password or unknown email: one answer, one cost, so neither can be told apart. */
  INVALID_CREDENTIALS: { status: 401, title: "Invalid email or password" },
  /** An access token that is malformed, tampered, `alg: none`, foreign or a refresh token. */
  TOKEN_INVALID: { status: 401, title: "Invalid token" },
  TOKEN_EXPIRED: { status: 401, title: "Token expired" },
  /** An access token of a sign-in that has ended since it was issued (a new password, a sign-out): sign in again. */
  TOKEN_REVOKED: { status: 401, title: "Token revoked; its sign-in has ended" },
  /** A refresh token that is unknown, revoked, forged or an access token. */
  REFRESH_TOKEN_INVALID: { status: 401, title: "Invalid refresh token" },
  /** A refresh token used twice: it was copied, so its whole sign-in is revoked. */
  REFRESH_TOKEN_REUSED: { status: 401, title: "Refresh token already used; its session was revoked" },
  /** Session auth: the cookie or session token is invalid, expired or signed out. */
  SESSION_INVALID: { status: 401, title: "Invalid or expired session" },
  USER_DISABLED: { status: 401, title: "User is disabled" },
  /** The user was deleted (or never existed) since the credential was issued. */
  USER_NOT_FOUND: { status: 401, title: "User no longer exists" },
  /**
   * `POST /auth/change_password`: the current password given is wrong, or the account has none
   * (a GitHub-only account): a stolen access token alone cannot change the password.
   */
  CURRENT_PASSWORD_INVALID: { status: 403, title: "The current password is not correct" },
  /**
   * `POST /auth/delete_account` by an account without a password (GitHub-only) whose sign-in is
   * not recent: sign in again, then retry.
   */
  RECENT_SIGN_IN_REQUIRED: { status: 403, title: "Sign in again to confirm it is you, then retry" },
  /** The password is outside the host's policy (length); `meta` carries the bounds. */
  WEAK_PASSWORD: { status: 400, title: "Password does not meet the policy" },
  /** `SIGNUP_DISABLED=true`: no new accounts, by email or socially. */
  SIGNUP_DISABLED: { status: 403, title: "Sign-up is disabled" },
  /** Session auth: a state-changing request from a browser Origin outside `trustedOrigins`. */
  ORIGIN_NOT_TRUSTED: { status: 403, title: "Request origin is not trusted" },
  EMAIL_TAKEN: { status: 409, title: "An account with this email already exists" },
  /** A social sign-in met an account it may not attach to (linking off, unverified or deleted). */
  ACCOUNT_EXISTS: { status: 409, title: "An account with this email already exists; sign in and link instead" },
  GITHUB_ALREADY_LINKED: { status: 409, title: "This GitHub account is linked to another user" },
  /** Unlinking the identity would leave the account with no way to sign in. */
  LAST_SIGN_IN_METHOD: { status: 409, title: "Cannot remove the account's only way to sign in" },
  /** Too many failed logins (per account or IP) or sign-ups (per IP); `Retry-After` says when. */
  RATE_LIMITED: { status: 429, title: "Too many attempts; try again later" },
  /** The OAuth `state` is forged, expired, for another provider or from another browser. */
  OAUTH_STATE_INVALID: { status: 400, title: "Invalid or expired OAuth state" },
  /** A one-time code that is used, expired, for another user or fails its PKCE verifier. */
  OAUTH_CODE_INVALID: { status: 400, title: "Invalid or expired authorization code" },
  /** A password-reset token that is unknown, used, replaced by a newer one, expired, or whose account is disabled or gone. */
  RESET_TOKEN_INVALID: { status: 400, title: "The password-reset link is invalid or has expired; ask for a new one" },
  /** An email-verification token that is unknown, used, replaced by a newer one, expired, or whose account is disabled or deleted. */
  VERIFY_TOKEN_INVALID: { status: 400, title: "The verification link is invalid or has expired; ask for a new one" },
  /** `DELETE /auth/sign_ins/{id}`: no sign-in of the caller with this id can still be used (unknown, ended, or another user's). */
  SIGN_IN_NOT_FOUND: { status: 404, title: "No such sign-in" },
  /** An email-change link that is unknown, used, replaced by a newer one, expired, or whose account is disabled or deleted. */
  EMAIL_CHANGE_TOKEN_INVALID: { status: 400, title: "The confirmation link is invalid or has expired; ask for a new one" },
  /** `POST /auth/verify_email/resend` for an account whose email is verified already. */
  EMAIL_ALREADY_VERIFIED: { status: 409, title: "This email is verified already" },
  /** `returnTo`/`callbackURL` is not on an allowed origin (open-redirect protection). */
  RETURN_TO_NOT_ALLOWED: { status: 400, title: "returnTo is not an allowed destination" },
  /** Session auth: the social provider in the path is not configured. */
  PROVIDER_NOT_CONFIGURED: { status: 404, title: "Unknown provider" },
  /** Session auth refused a request for a reason with no code of its own (`meta.reason` says which). */
  SESSION_REQUEST_REJECTED: { status: 400, title: "The session request was rejected" },
  /** The identity provider failed or the user cancelled there: not our fault, so not tracked. */
  OAUTH_PROVIDER_FAILED: { status: 502, title: "The identity provider did not complete the sign-in", track: false },

  /** TOKEN_SECRET, REFRESH_TOKEN_SECRET and SESSION_SECRET must all differ. */
  SAME_SECRETS: {
    message: (a: string, b: string) => `${a} and ${b} must be different secrets`,
  },
  /** In production every auth secret has at least 32 characters. */
  WEAK_SECRET: {
    message: (name: string, minimum: number) =>
      `${name} is too short for production: use at least ${minimum} random characters (e.g. \`openssl rand -base64 48\`)`,
  },
  USER_MODEL_REQUIRED: {
    message: () => "authPlugin needs a userModel (a mongoose model using baseUserPlugin)",
  },
  /** A feature needs a field its schema plugin adds (email, GitHub fields, the federated id). */
  USER_MODEL_FIELD_MISSING: {
    message: (field: string, plugin: string) => `The user model has no "${field}" field: apply ${plugin} to its schema`,
  },
  /** `profileFields` names a framework-managed field. */
  PROFILE_FIELD_FORBIDDEN: {
    message: (field: string) => `profileFields may not include "${field}": it is managed by the framework`,
  },
  /** `profileFields` names a field the user schema does not have (or one clients cannot write). */
  PROFILE_FIELD_UNKNOWN: {
    message: (field: string) => `profileFields names "${field}", which is not a writable field of the user model's schema`,
  },
  /** An OAuth client option (`githubAuth`, `sessionAuth.<provider>OAuth`) is missing or empty, typically read from an unset variable. */
  OAUTH_OPTION_INVALID: {
    message: (option: string, got: unknown) =>
      `${option} must be a non-empty string (got ${typeof got === "string" ? JSON.stringify(got) : String(got)}); is the variable it comes from set?`,
  },
  /** `passwordReset`, `emailVerification` or `emailChange` without a `send` function, with an `expiresIn` that is no duration, or under session auth. */
  MAIL_LINK_OPTION_INVALID: {
    message: (option: string, detail: string) => `authPlugin ${option}: ${detail}`,
  },
  /** `accountDeletion` with an `onDeleted` that is not a function or a `recentSignIn` that is no duration, or under session auth. */
  ACCOUNT_DELETION_OPTION_INVALID: {
    message: (detail: string) => `authPlugin accountDeletion: ${detail}`,
  },
  /** An allowed/trusted origin is not a bare http(s) origin. */
  INVALID_RETURN_ORIGIN: {
    message: (origin: string) => `"${origin}" is not an origin (expected e.g. https://app.example.com)`,
  },
  /** Development only: the generated secrets file (`SVC_DEV_SECRETS_FILE`) is not a JSON object of strings. */
  DEVELOPMENT_SECRETS_INVALID: {
    message: (file: string) =>
      `${file} is not a JSON object of secrets: fix it, or delete it to generate new development secrets (this signs everyone out)`,
  },
  /** An auth service (AUTHENTICATOR, AUTHENTICATION_MIDDLEWARE, ACCOUNTS) was resolved before start or after stop. */
  NOT_STARTED: { message: () => "The auth plugin has not started yet: resolve auth services per request or after it started" },
});

/** The key of an `AuthErrors` entry, e.g. `"TOKEN_EXPIRED"`. */
export type AuthErrorKey = keyof typeof AuthErrors;

