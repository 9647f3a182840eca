import { APIError as BetterAuthError } from "better-auth/api";
import { isAPIError, type APIError } from "../../../kernel/api-error.js";
import type { HttpErrorFactory } from "../../../kernel/errors.js";
import { HttpErrors } from "../../../kernel/http-errors.js";
import { requestValidationError } from "../../validation/index.js";
import { AuthErrors } from "../errors.js";

const PREFIX = "AUTH_";

/** better-auth error codes that mean the same as one of ours (its message as the detail). */
const SAME_MEANING: Record<string, (message: string) => APIError> = {
  USER_ALREADY_EXISTS: () => AuthErrors.EMAIL_TAKEN(),
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: () => AuthErrors.EMAIL_TAKEN(),
  INVALID_EMAIL_OR_PASSWORD: () => AuthErrors.INVALID_CREDENTIALS(),
  INVALID_PASSWORD: () => AuthErrors.INVALID_CREDENTIALS(),
  INVALID_ORIGIN: () => AuthErrors.ORIGIN_NOT_TRUSTED(),
  MISSING_OR_NULL_ORIGIN: () => AuthErrors.ORIGIN_NOT_TRUSTED(),
  CROSS_SITE_NAVIGATION_LOGIN_BLOCKED: () => AuthErrors.ORIGIN_NOT_TRUSTED(),
  INVALID_CALLBACK_URL: () => AuthErrors.RETURN_TO_NOT_ALLOWED(),
  INVALID_REDIRECT_URL: () => AuthErrors.RETURN_TO_NOT_ALLOWED(),
  INVALID_ERROR_CALLBACK_URL: () => AuthErrors.RETURN_TO_NOT_ALLOWED(),
  INVALID_NEW_USER_CALLBACK_URL: () => AuthErrors.RETURN_TO_NOT_ALLOWED(),
  PASSWORD_TOO_SHORT: (message) => AuthErrors.WEAK_PASSWORD({ detail: message, source: { pointer: "/password" } }),
  PASSWORD_TOO_LONG: (message) => AuthErrors.WEAK_PASSWORD({ detail: message, source: { pointer: "/password" } }),
  INVALID_EMAIL: () => requestValidationError([{ path: "email", message: "must be an email address", keyword: "format" }], "body"),
  VALIDATION_ERROR: (message) => requestValidationError([{ path: "", message, keyword: "better-auth" }], "body"),
  EMAIL_SIGN_UP_DISABLED: () => AuthErrors.SIGNUP_DISABLED(),
  SIGN_UP_DISABLED: () => AuthErrors.SIGNUP_DISABLED(),
};

/** The catalogue entry of one of our codes, when a hook's error comes back through better-auth. */
function ours(code: string): HttpErrorFactory | undefined {
  const key = code.startsWith(PREFIX) ? code.slice(PREFIX.length) : "";
  const entry: unknown = Object.hasOwn(AuthErrors, key) ? (AuthErrors as Record<string, unknown>)[key] : undefined;
  return typeof entry === "function" && "title" in entry ? (entry as HttpErrorFactory) : undefined;
}

/**
 * better-auth's error answer (`{code, message}`) → one of our catalogued errors: the same code
 * where the meaning is the same, otherwise one chosen by status, better-auth's code kept in
 * `meta.reason`. No code is made up on the fly, so every one a client sees is in docs/errors.md.
 *
 * @example
 * fromBetterAuth(409, { code: "USER_ALREADY_EXISTS", message: "User already exists" }); // AUTH_EMAIL_TAKEN
 */
export function fromBetterAuth(status: number, body: unknown): APIError {
  const answer = (body ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof answer.code === "string" ? answer.code : "";
  const message = typeof answer.message === "string" ? answer.message : "Session auth request failed";
  const same = SAME_MEANING[code] ?? ours(code);
  if (same) return same(message);
  const details = { detail: message, meta: code ? { reason: code } : undefined };
  if (status === 401) return AuthErrors.SESSION_INVALID(details);
  if (status === 403) return HttpErrors.FORBIDDEN(details);
  if (status === 404) return HttpErrors.NOT_FOUND(details);
  if (status === 429) return AuthErrors.RATE_LIMITED(details);
  if (status < 500) return AuthErrors.SESSION_REQUEST_REJECTED(details);
  // Ours to fix: tracked, and better-auth's message stays out of the response.
  return HttpErrors.INTERNAL({ cause: new Error(`better-auth answered ${status} ${code}: ${message}`) });
}

/**
 * One of our errors thrown inside a better-auth hook, as better-auth's own error (which it turns
 * into its response), carrying our code so `fromBetterAuth` maps it back unchanged.
 *
 * @example
 * before: async () => { if (disabled) throw toBetterAuth(AuthErrors.SIGNUP_DISABLED()); }
 */
export function toBetterAuth(error: unknown): unknown {
  if (!isAPIError(error)) return error;
  const status = error.status === 401 ? "UNAUTHORIZED" : error.status === 403 ? "FORBIDDEN" : "CONFLICT";
  return new BetterAuthError(status, { message: error.title, code: error.code });
}
