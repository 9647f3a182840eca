import type { ErrorObject } from "ajv";
import type { SchemaObject } from "openapi3-ts/oas31";
import type { HttpErrorFactory } from "../../../kernel/errors.js";
import {
  ajvFor,
  fromAjvErrors,
  operatorKeys,
  requestValidationError,
  ValidationErrors,
  type ValidationIssue,
} from "../../validation/index.js";
import { FORBIDDEN_PROFILE_FIELDS } from "../users/profile-fields.js";

/** Checks a request body and returns the typed value the service needs, or throws SPEC §7's 400. */
export type BodyCheck<T> = (body: unknown) => T;

/** An email (trimmed, lower-cased) and a password (as sent, never trimmed). */
export interface Credentials {
  readonly email: string;
  readonly password: string;
}

/** A sign-up: credentials plus the host-allowed profile fields the client sent. */
export interface SignupBody extends Credentials {
  readonly profile: Record<string, unknown>;
}

// Auth bodies follow the same rules in every app, whatever its validation settings: no coercion
// (the number 12345678 is not a password), nothing stripped (a field a client may not set is
// refused, never silently dropped), and no `onValidationError` can wave a sign-up through.
const ajv = ajvFor({ coerceTypes: false, removeAdditional: false });

// Surrounding spaces are allowed (they are trimmed); one @ and a dot in the domain; no control
// character anywhere (NUL, DEL, C1: no mail system delivers to them, and logs would carry them).
const EMAIL: SchemaObject = { type: "string", maxLength: 254, pattern: "^\\s*[^\\s@\\p{Cc}]+@[^\\s@\\p{Cc}]+\\.[^\\s@\\p{Cc}]+\\s*$" };
const NOT_AN_EMAIL = "must be an email address";
// The policy (length bounds) is the service's: it answers with AUTH_WEAK_PASSWORD, not a 400 shape error.
const PASSWORD: SchemaObject = { type: "string", minLength: 1, maxLength: 1024 };
// A new password has no bounds here, so an empty or an over-long one hears the policy (`must be 8
// to 256 characters`, AUTH_WEAK_PASSWORD) like any other; the body-size limit bounds it still.
const NEW_PASSWORD: SchemaObject = { type: "string" };

/** Each profile field the host opens, with its JSON schema on the user model (see `profileFieldSchemas`). */
export type ProfileFieldSchemas = Readonly<Record<string, SchemaObject>>;

// What a sign-up may not set: every framework-managed field but the credentials themselves.
const SIGNUP_MANAGED = FORBIDDEN_PROFILE_FIELDS.filter((field) => field !== "email" && field !== "password");

const OBJECT_EXPECTED: ValidationIssue = { path: "", message: "must be a JSON object", keyword: "type" };
const MANAGED = "is managed by the server and cannot be set";
const DOTTED = 'has a key containing "." (paths are not accepted in bodies)';

/** What a body check knows of the profile fields it takes. */
interface ProfileCheck {
  fields: readonly string[];
  /** The message of a top-level field outside them. */
  unknownField: string;
}

/**
 * The one shape of every auth body check, in order: a JSON object; no `$`-key at any depth
 * (`VALIDATION_OPERATOR_IN_BODY`); no framework-managed top-level field
 * (`VALIDATION_READ_ONLY_FIELD`); no key containing "." inside a profile value
 * (`VALIDATION_OPERATOR_IN_BODY`: MongoDB would read it as a path); then the schema — an
 * undeclared field is `VALIDATION_UNKNOWN_FIELD`, anything else `VALIDATION_INVALID_BODY`, each
 * with `source.pointer` at the first problem.
 */
function bodyCheck<T>(schema: SchemaObject, managed: readonly string[], read: (body: Record<string, unknown>) => T, profile?: ProfileCheck): BodyCheck<T> {
  const validate = ajv.compile(schema);
  return (body) => {
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw requestValidationError([OBJECT_EXPECTED], "body");
    const operators = operatorKeys(body);
    if (operators.length > 0) throw requestValidationError(operators, "body", ValidationErrors.OPERATOR_IN_BODY);
    const record = body as Record<string, unknown>;
    const readOnly = Object.keys(record).filter((key) => managed.includes(key));
    if (readOnly.length > 0) {
      throw requestValidationError(
        readOnly.map((path) => ({ path, message: MANAGED, keyword: "readOnly" })),
        "body",
        ValidationErrors.READ_ONLY_FIELD,
      );
    }
    const dotted = profile ? dottedKeys(record, profile.fields) : [];
    if (dotted.length > 0) throw requestValidationError(dotted, "body", ValidationErrors.OPERATOR_IN_BODY);
    if (!validate(record)) {
      const issues = issuesOf(validate.errors ?? []).map((issue) =>
        profile && issue.keyword === "additionalProperties" && !issue.path.includes(".") ? { ...issue, message: profile.unknownField } : issue,
      );
      throw requestValidationError(issues, "body", classify(issues));
    }
    return read(record);
  };
}

/** Keys containing "." at any depth of the profile values (`operatorKeys` already bounded the depth). */
function dottedKeys(record: Record<string, unknown>, fields: readonly string[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const visit = (value: unknown, path: string): void => {
    if (value === null || typeof value !== "object") return;
    for (const [key, child] of Object.entries(value)) {
      if (!Array.isArray(value) && key.includes(".")) issues.push({ path, message: DOTTED, keyword: "propertyNames" });
      else visit(child, `${path}.${key}`);
    }
  };
  for (const field of fields) if (Object.hasOwn(record, field)) visit(record[field], field);
  return issues;
}

function issuesOf(errors: readonly ErrorObject[]): ValidationIssue[] {
  // The email pattern's own text (a regular expression) would tell a user nothing.
  return fromAjvErrors(errors).map((issue) => (issue.keyword === "pattern" && (issue.path === "email" || issue.path === "newEmail") ? { ...issue, message: NOT_AN_EMAIL } : issue));
}

function classify(issues: readonly ValidationIssue[]): HttpErrorFactory {
  if (issues.some((issue) => issue.keyword === "additionalProperties")) return ValidationErrors.UNKNOWN_FIELD;
  return ValidationErrors.INVALID_BODY;
}

const readCredentials = (body: Record<string, unknown>): Credentials => ({
  email: (body.email as string).trim().toLowerCase(),
  password: body.password as string,
});

/**
 * `{email, password}` (other fields are ignored): login, and session sign-in and sign-up.
 *
 * @example
 * const { email, password } = credentialsBody(req.body); // email trimmed and lower-cased
 */
export const credentialsBody: BodyCheck<Credentials> = bodyCheck(
  { type: "object", properties: { email: EMAIL, password: PASSWORD }, required: ["email", "password"] },
  [],
  readCredentials,
);

/**
 * The session provider's sign-up body: credentials, framework-managed fields refused as on the
 * JWT provider's sign-up (`VALIDATION_READ_ONLY_FIELD`: `admin`, `disabled`, ids...), anything
 * else passed on to better-auth (it reads `name`, `image`, `callbackURL`).
 *
 * @example
 * sessionSignupBody({ email: "ada@example.com", password: "correct horse", name: "Ada" }); // { email, password }
 * sessionSignupBody({ email: "ada@example.com", password: "correct horse", admin: true }); // throws 400
 */
export const sessionSignupBody: BodyCheck<Credentials> = bodyCheck(
  { type: "object", properties: { email: EMAIL, password: NEW_PASSWORD }, required: ["email", "password"] },
  SIGNUP_MANAGED,
  readCredentials,
);

/** The profile part of a body check; says which profile fields there are (a field of the user model is still refused until the host opens it). */
function profileCheck(profileFields: ProfileFieldSchemas): ProfileCheck {
  const fields = Object.keys(profileFields);
  const unknownField =
    fields.length > 0 ? `is not a profile field (profile fields: ${fields.join(", ")})` : "is not a profile field (this app opens none: authPlugin's profileFields)";
  return { fields, unknownField };
}

/**
 * The sign-up body of the JWT provider: credentials plus `profileFields` only. A
 * framework-managed field (`admin`, `disabled`, ids, GitHub fields...) is
 * `VALIDATION_READ_ONLY_FIELD`, any other field outside `profileFields` `VALIDATION_UNKNOWN_FIELD`.
 *
 * Each profile value is checked against its schema on the user model (`profileFieldSchemas`).
 *
 * @example
 * const check = signupBody({ name: { type: "string" } });
 * check({ email: "ada@example.com", password: "correct horse", name: "Ada" }).profile; // { name: "Ada" }
 * check({ email: "ada@example.com", password: "correct horse", admin: true });        // throws 400
 */
export function signupBody(profileFields: ProfileFieldSchemas): BodyCheck<SignupBody> {
  return bodyCheck(
    signupSchema(profileFields),
    SIGNUP_MANAGED,
    (body) => {
      const { email: _email, password: _password, ...profile } = body;
      return { ...readCredentials(body), profile };
    },
    profileCheck(profileFields),
  );
}

/** The JSON schema of the JWT sign-up body (validation and OpenAPI). */
export function signupSchema(profileFields: ProfileFieldSchemas): SchemaObject {
  return { type: "object", properties: { email: EMAIL, password: NEW_PASSWORD, ...profileFields }, required: ["email", "password"], additionalProperties: false };
}

/** The JSON schema of the `PATCH /auth/me` body (validation and OpenAPI). */
export function profileSchema(profileFields: ProfileFieldSchemas): SchemaObject {
  return { type: "object", properties: { ...profileFields }, additionalProperties: false };
}

/**
 * The `PATCH /auth/me` body: `profileFields` only (`email` and passwords included among the
 * framework-managed fields a client may never set).
 *
 * @example
 * profileBody({ name: { type: "string" } })({ name: "Linus" }); // { name: "Linus" }
 */
export function profileBody(profileFields: ProfileFieldSchemas): BodyCheck<Record<string, unknown>> {
  return bodyCheck(profileSchema(profileFields), FORBIDDEN_PROFILE_FIELDS, (body) => ({ ...body }), profileCheck(profileFields));
}

/**
 * `{refreshToken}`; the token itself is judged by the token service (`AUTH_REFRESH_TOKEN_INVALID`).
 *
 * @example
 * const { refreshToken } = refreshTokenBody(req.body);
 */
export const refreshTokenBody: BodyCheck<{ refreshToken: string }> = bodyCheck(
  { type: "object", properties: { refreshToken: { type: "string" } }, required: ["refreshToken"] },
  [],
  (body) => ({ refreshToken: body.refreshToken as string }),
);

/** What `POST /auth/change_password` takes. */
export interface PasswordChange {
  readonly currentPassword: string;
  readonly newPassword: string;
}

/** The JSON schema of the `POST /auth/change_password` body (validation and OpenAPI). */
export const PASSWORD_CHANGE_SCHEMA: SchemaObject = {
  type: "object",
  properties: {
    currentPassword: { ...PASSWORD, format: "password", description: "The password the account has now" },
    newPassword: { ...NEW_PASSWORD, format: "password", description: "The new password (the app's password policy applies)" },
  },
  required: ["currentPassword", "newPassword"],
  additionalProperties: false,
};

/**
 * `{currentPassword, newPassword}` and nothing else (a stray field is `VALIDATION_UNKNOWN_FIELD`);
 * the new password's policy is the service's (`AUTH_WEAK_PASSWORD`).
 *
 * @example
 * const { currentPassword, newPassword } = passwordChangeBody(req.body);
 */
export const passwordChangeBody: BodyCheck<PasswordChange> = bodyCheck(PASSWORD_CHANGE_SCHEMA, [], (body) => ({
  currentPassword: body.currentPassword as string,
  newPassword: body.newPassword as string,
}));

/** The JSON schema of the `POST /auth/password_reset` body (validation and OpenAPI). */
export const PASSWORD_RESET_REQUEST_SCHEMA: SchemaObject = {
  type: "object",
  properties: { email: { ...EMAIL, description: "The account's sign-in email" } },
  required: ["email"],
  additionalProperties: false,
};

/**
 * `{email}` and nothing else: who asks for a password-reset mail.
 *
 * @example
 * const { email } = passwordResetRequestBody(req.body); // trimmed and lower-cased
 */
export const passwordResetRequestBody: BodyCheck<{ email: string }> = bodyCheck(PASSWORD_RESET_REQUEST_SCHEMA, [], (body) => ({
  email: (body.email as string).trim().toLowerCase(),
}));

/** The JSON schema of the `POST /auth/password_reset/confirm` body (validation and OpenAPI). */
export const PASSWORD_RESET_CONFIRM_SCHEMA: SchemaObject = {
  type: "object",
  properties: {
    token: { type: "string", maxLength: 256, description: "The token from the reset link" },
    newPassword: { ...NEW_PASSWORD, format: "password", description: "The new password (the app's password policy applies)" },
  },
  required: ["token", "newPassword"],
  additionalProperties: false,
};

/**
 * `{token, newPassword}` and nothing else; the token itself is judged by the reset service
 * (`AUTH_RESET_TOKEN_INVALID`), the password by the policy (`AUTH_WEAK_PASSWORD`).
 *
 * @example
 * const { token, newPassword } = passwordResetConfirmBody(req.body);
 */
export const passwordResetConfirmBody: BodyCheck<{ token: string; newPassword: string }> = bodyCheck(PASSWORD_RESET_CONFIRM_SCHEMA, [], (body) => ({
  token: body.token as string,
  newPassword: body.newPassword as string,
}));

/** What `POST /auth/change_email` takes. */
export interface EmailChangeRequest {
  /** Trimmed and lower-cased. */
  readonly newEmail: string;
  readonly currentPassword: string;
}

/** The JSON schema of the `POST /auth/change_email` body (validation and OpenAPI). */
export const EMAIL_CHANGE_SCHEMA: SchemaObject = {
  type: "object",
  properties: {
    newEmail: { ...EMAIL, description: "The address to sign in with from now on; a confirmation link is mailed there" },
    currentPassword: { ...PASSWORD, format: "password", description: "The password the account has now" },
  },
  required: ["newEmail", "currentPassword"],
  additionalProperties: false,
};

/**
 * `{newEmail, currentPassword}` and nothing else.
 *
 * @example
 * const { newEmail, currentPassword } = emailChangeBody(req.body); // newEmail trimmed and lower-cased
 */
export const emailChangeBody: BodyCheck<EmailChangeRequest> = bodyCheck(EMAIL_CHANGE_SCHEMA, [], (body) => ({
  newEmail: (body.newEmail as string).trim().toLowerCase(),
  currentPassword: body.currentPassword as string,
}));

/** The JSON schema of the `POST /auth/delete_account` body (validation and OpenAPI). */
export const ACCOUNT_DELETION_SCHEMA: SchemaObject = {
  type: "object",
  properties: { currentPassword: { ...PASSWORD, format: "password", description: "The account's password (required when it has one)" } },
  additionalProperties: false,
};

/**
 * `{currentPassword?}` and nothing else; whether the password is needed, and right, is the
 * service's to say (`AUTH_CURRENT_PASSWORD_INVALID`).
 *
 * @example
 * const { currentPassword } = accountDeletionBody(req.body);
 */
export const accountDeletionBody: BodyCheck<{ currentPassword?: string }> = bodyCheck(ACCOUNT_DELETION_SCHEMA, [], (body) =>
  typeof body.currentPassword === "string" ? { currentPassword: body.currentPassword } : {},
);

/** The JSON schema of a body that carries only a mailed link's token; `link` names the link in OpenAPI. */
function linkTokenSchema(link: string): SchemaObject {
  return {
    type: "object",
    properties: { token: { type: "string", maxLength: 256, description: `The token from the ${link} link` } },
    required: ["token"],
    additionalProperties: false,
  };
}

/** The `POST /auth/verify_email` body's schema (validation and OpenAPI). */
export const VERIFY_EMAIL_SCHEMA = linkTokenSchema("verification");
/** The `POST /auth/change_email/confirm` body's schema (validation and OpenAPI). */
export const EMAIL_CHANGE_CONFIRM_SCHEMA = linkTokenSchema("confirmation");

/**
 * `{token}` and nothing else (`POST /auth/verify_email`, `POST /auth/change_email/confirm`); the
 * token itself is judged by the service it belongs to (`AUTH_VERIFY_TOKEN_INVALID`,
 * `AUTH_EMAIL_CHANGE_TOKEN_INVALID`).
 *
 * @example
 * const { token } = linkTokenBody(req.body);
 */
export const linkTokenBody: BodyCheck<{ token: string }> = bodyCheck(VERIFY_EMAIL_SCHEMA, [], (body) => ({ token: body.token as string }));

/**
 * Any JSON object without `$`-keys, for bodies whose values are checked where they are used
 * (one-time codes answer `AUTH_OAUTH_CODE_INVALID` whatever is wrong with them).
 *
 * @example
 * await github.redeem(objectBody(req.body));
 */
export const objectBody: BodyCheck<Record<string, unknown>> = bodyCheck({ type: "object" }, [], (body) => body);
