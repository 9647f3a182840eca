import { APIError } from "../../kernel/api-error.js";
import { defineErrors } from "../../kernel/errors.js";

/**
 * Errors a client can cause. Each becomes an `APIError` with a stable `AUTH_<KEY>` code; clients
 * and tests match on the code. Titles are deliberately generic where detail would help an
 * attacker (a wrong password and an unknown email share `AUTH_INVALID_CREDENTIALS`).
 */
const HTTP_ERRORS = {
  AUTHENTICATION_REQUIRED: { status: 401, title: "Authentication required" },
  INVALID_CREDENTIALS: { status: 401, title: "Invalid email or password" },
  TOKEN_INVALID: { status: 401, title: "Invalid token" },
  TOKEN_EXPIRED: { status: 401, title: "Token expired" },
  REFRESH_TOKEN_INVALID: { status: 401, title: "Invalid refresh token" },
  REFRESH_TOKEN_REUSED: { status: 401, title: "Refresh token already used; its session was revoked" },
  SESSION_INVALID: { status: 401, title: "Invalid or expired session" },
  USER_DISABLED: { status: 401, title: "User is disabled" },
  USER_NOT_FOUND: { status: 401, title: "User no longer exists" },
  INVALID_BODY: { status: 400, title: "Invalid request body" },
  FIELD_NOT_ALLOWED: { status: 400, title: "Field may not be set" },
  WEAK_PASSWORD: { status: 400, title: "Password does not meet the policy" },
  SIGNUP_DISABLED: { status: 403, title: "Sign-up is disabled" },
  ORIGIN_NOT_TRUSTED: { status: 403, title: "Request origin is not trusted" },
  EMAIL_TAKEN: { status: 409, title: "An account with this email already exists" },
  ACCOUNT_EXISTS: { status: 409, title: "An account with this email already exists; sign in and link instead" },
  GITHUB_ALREADY_LINKED: { status: 409, title: "This GitHub account is linked to another user" },
  LAST_SIGN_IN_METHOD: { status: 409, title: "Cannot remove the account's only way to sign in" },
  RATE_LIMITED: { status: 429, title: "Too many attempts; try again later" },
  OAUTH_STATE_INVALID: { status: 400, title: "Invalid or expired OAuth state" },
  OAUTH_CODE_INVALID: { status: 400, title: "Invalid or expired authorization code" },
  RETURN_TO_NOT_ALLOWED: { status: 400, title: "returnTo is not an allowed destination" },
  OAUTH_PROVIDER_FAILED: { status: 502, title: "The identity provider did not complete the sign-in" },
} as const satisfies Record<string, { status: number; title: string }>;

export type AuthErrorKey = keyof typeof HTTP_ERRORS;

type AuthErrorFactory = ((detail?: string, meta?: Record<string, unknown>) => APIError) & {
  readonly code: string;
  readonly status: number;
};

/**
 * The auth plugin's client-facing error catalogue.
 *
 * @example
 * throw AuthErrors.TOKEN_EXPIRED();
 * AuthErrors.TOKEN_EXPIRED.code; // "AUTH_TOKEN_EXPIRED"
 */
export const AuthErrors = Object.fromEntries(
  Object.entries(HTTP_ERRORS).map(([key, spec]) => {
    const code = `AUTH_${key}`;
    const factory = (detail?: string, meta?: Record<string, unknown>) =>
      new APIError({
        status: spec.status,
        title: spec.title,
        code,
        detail,
        meta,
        // Client mistakes, and the 502 is the provider's: neither belongs in the error tracker.
        disableExternalErrorTracking: true,
      });
    return [key, Object.assign(factory, { code, status: spec.status })];
  }),
) as { readonly [K in AuthErrorKey]: AuthErrorFactory };

/**
 * Start-up (configuration) errors: the app refuses to start and says what to fix.
 *
 * @example
 * throw AuthConfigErrors.SAME_SECRETS();
 */
export const AuthConfigErrors = defineErrors("AUTH_CONFIG", {
  SAME_SECRETS: {
    message: (a: string, b: string) => `${a} and ${b} must be different secrets`,
  },
  WEAK_SECRET: {
    message: (name: string, minimum: number) =>
      `${name} is too short for production: use at least ${minimum} random characters (e.g. \`openssl rand -base64 48\`)`,
  },
  USER_MODEL_REQUIRED: {
    message: () => "authPlugin needs a userModel (a mongoose model using baseUserPlugin)",
  },
  USER_MODEL_FIELD_MISSING: {
    message: (field: string, plugin: string) => `The user model has no "${field}" field: apply ${plugin} to its schema`,
  },
  PROFILE_FIELD_FORBIDDEN: {
    message: (field: string) => `profileFields may not include "${field}": it is managed by the framework`,
  },
  INVALID_RETURN_ORIGIN: {
    message: (origin: string) => `"${origin}" is not an origin (expected e.g. https://app.example.com)`,
  },
  NOT_STARTED: { message: () => "The auth plugin has not started yet" },
});
