import type { OpenApiRegistry, SchemaObject } from "../../../kernel/openapi-registry.js";
import { ACCOUNT_DELETION_SCHEMA, EMAIL_CHANGE_CONFIRM_SCHEMA, EMAIL_CHANGE_SCHEMA, PASSWORD_CHANGE_SCHEMA, PASSWORD_RESET_CONFIRM_SCHEMA, PASSWORD_RESET_REQUEST_SCHEMA, profileSchema, VERIFY_EMAIL_SCHEMA, type ProfileFieldSchemas } from "../http/request-bodies.js";
import { addAuthOperations, answer, BEARER_SECURITY, dataOf, documentAuthComponents, invalid, OWN_SIGN_IN_SCHEMA, passwordRoutes, schemaRef, type AuthRoute } from "../openapi.js";

const tokens = dataOf(schemaRef("AuthTokens"));
const user = dataOf(schemaRef("AuthUser"));

const credentials: SchemaObject = {
  type: "object",
  properties: {
    email: { type: "string", format: "email", description: "Email (case-insensitive)" },
    password: { type: "string", format: "password", description: "Password" },
  },
  required: ["email", "password"],
};

/** `{data: {accepted: true}}`: a mail is on its way (or, for reset, may be). */
const accepted = dataOf({ type: "object", properties: { accepted: { type: "boolean", const: true } }, required: ["accepted"] });

const rotated: SchemaObject = {
  type: "object",
  properties: { token: { type: "string" }, refreshToken: { type: "string" } },
  required: ["token", "refreshToken"],
};

/**
 * Documents the JWT routes in the app's OpenAPI document. Profile fields are documented with the
 * schema they are validated against (their schema on the user model, as REST documents an update body).
 *
 * @example
 * documentJwtRoutes(ctx.openapi, { name: { type: "string", maxLength: 100 } });
 */
export function documentJwtRoutes(openapi: OpenApiRegistry, profileFields: ProfileFieldSchemas, features: { passwordReset?: boolean; emailVerification?: boolean; emailChange?: boolean; accountDeletion?: boolean } = {}): void {
  documentAuthComponents(openapi);
  const signUpBody: SchemaObject = { ...credentials, properties: { ...credentials.properties, ...profileFields }, additionalProperties: false };
  addAuthOperations(openapi, [
    ...passwordRoutes({ signUp: "/auth/signup", signIn: "/auth/login" }, { signUpBody, signInBody: credentials, signedIn: tokens }),
    ["post", "/auth/refresh_token", {
      operationId: "refreshToken",
      summary: "Exchange a refresh token for a new token pair (the old refresh token is used up)",
      body: { type: "object", properties: { refreshToken: { type: "string" } }, required: ["refreshToken"] },
      ok: { 200: answer("Rotated", dataOf(rotated)) },
      refusals: { 400: invalid("No refreshToken string"), 401: "Invalid, expired, revoked or reused refresh token; disabled user" },
    }],
    ["post", "/auth/logout", {
      operationId: "logOut",
      summary: "End the sign-in a refresh token belongs to (its refresh tokens are revoked); safe to repeat",
      body: { type: "object", properties: { refreshToken: { type: "string" } }, required: ["refreshToken"] },
      ok: { 204: answer("Signed out (also when the token was already unusable)") },
      refusals: { 400: invalid("No refreshToken string") },
    }],
    ["post", "/auth/logout_all", {
      operationId: "logOutEverywhere",
      summary: "End every sign-in of the signed-in user, on every device (access tokens included)",
      security: BEARER_SECURITY,
      ok: { 204: answer("Every sign-in ended") },
      refusals: { 401: "Not signed in" },
    }],
    ["get", "/auth/sign_ins", {
      operationId: "listSignIns",
      summary: "The signed-in user's sign-ins that can still be refreshed (devices), newest activity first",
      security: BEARER_SECURITY,
      ok: { 200: answer("Sign-ins", dataOf({ type: "array", items: OWN_SIGN_IN_SCHEMA, maxItems: 100 })) },
      refusals: { 401: "Not signed in" },
    }],
    ["delete", "/auth/sign_ins/{id}", {
      operationId: "endSignIn",
      summary: "Sign out one device: that sign-in's refresh tokens are revoked and its access tokens refused from the next request on",
      security: BEARER_SECURITY,
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", maxLength: 64 }, description: "A sign-in id from GET /auth/sign_ins" }],
      ok: { 204: answer("Signed out there") },
      refusals: { 401: "Not signed in", 404: "No sign-in of the caller with this id can still be used" },
    }],
    ["post", "/auth/change_password", {
      operationId: "changePassword",
      summary: "Change the signed-in user's password; every other sign-in ends, and this device gets a new one",
      security: BEARER_SECURITY,
      body: PASSWORD_CHANGE_SCHEMA,
      ok: { 200: answer("Changed; the new sign-in", tokens) },
      refusals: {
        400: "Malformed body, or a new password outside the policy (AUTH_WEAK_PASSWORD)",
        401: "Not signed in",
        403: "The current password is not correct",
        429: "Too many wrong current passwords (see Retry-After)",
      },
    }],
    ["get", "/auth/me", {
      operationId: "readMe",
      summary: "The signed-in user",
      security: BEARER_SECURITY,
      ok: { 200: answer("User", user) },
      refusals: { 401: "Not signed in" },
    }],
    ["patch", "/auth/me", {
      operationId: "updateMe",
      summary: "Update the signed-in user's profile (host-allowed fields only)",
      security: BEARER_SECURITY,
      body: profileSchema(profileFields),
      ok: { 200: answer("Updated user", user) },
      refusals: { 400: invalid("A field that may not be set"), 401: "Not signed in" },
    }],
    ...(features.passwordReset ? passwordResetRoutes : []),
    ...(features.emailVerification ? emailVerificationRoutes : []),
    ...(features.emailChange ? emailChangeRoutes : []),
    ...(features.accountDeletion ? [accountDeletionRoute] : []),
  ]);
}

const passwordResetRoutes: AuthRoute[] = [
  ["post", "/auth/password_reset", {
    operationId: "requestPasswordReset",
    summary: "Ask for a password-reset mail; the answer is the same whether or not the email has an account",
    body: PASSWORD_RESET_REQUEST_SCHEMA,
    ok: { 202: answer("Accepted: if the email has an account, a link is on its way", accepted) },
    refusals: { 400: invalid("Malformed email"), 429: "Too many reset requests for this email or from this IP (see Retry-After)" },
  }],
  ["post", "/auth/password_reset/confirm", {
    operationId: "confirmPasswordReset",
    summary: "Set a new password with the token from the reset mail; every sign-in of the account ends",
    body: PASSWORD_RESET_CONFIRM_SCHEMA,
    ok: { 204: answer("Password set; sign in with it") },
    refusals: { 400: "Malformed body, a token that is invalid, used or expired (AUTH_RESET_TOKEN_INVALID), or a new password outside the policy (AUTH_WEAK_PASSWORD)" },
  }],
];

const emailVerificationRoutes: AuthRoute[] = [
  ["post", "/auth/verify_email", {
    operationId: "verifyEmail",
    summary: "Confirm the account's email with the token from the verification mail (stamps emailVerifiedAt)",
    body: VERIFY_EMAIL_SCHEMA,
    ok: { 204: answer("Verified") },
    refusals: { 400: "Malformed body, or a token that is invalid, used or expired (AUTH_VERIFY_TOKEN_INVALID)" },
  }],
  ["post", "/auth/verify_email/resend", {
    operationId: "resendVerificationEmail",
    summary: "Mail the signed-in user a new verification link (the older one stops working)",
    security: BEARER_SECURITY,
    ok: { 202: answer("A link is on its way", accepted) },
    refusals: { 401: "Not signed in", 409: "The email is verified already", 429: "Too many requests (see Retry-After)" },
  }],
];

const emailChangeRoutes: AuthRoute[] = [
  ["post", "/auth/change_email", {
    operationId: "requestEmailChange",
    summary: "Ask to change the signed-in user's email: a confirmation link is mailed to the new address (nothing changes until it is followed)",
    security: BEARER_SECURITY,
    body: EMAIL_CHANGE_SCHEMA,
    ok: { 202: answer("A link is on its way to the new address", accepted) },
    refusals: {
      400: invalid("Malformed body, or the account's own address"),
      401: "Not signed in",
      403: "The current password is not correct",
      409: "Another account has this email",
      429: "Too many wrong passwords or mails asked for (see Retry-After)",
    },
  }],
  ["post", "/auth/change_email/confirm", {
    operationId: "confirmEmailChange",
    summary: "Make the new address the account's sign-in email, with the token from the confirmation mail (it counts as verified)",
    body: EMAIL_CHANGE_CONFIRM_SCHEMA,
    ok: { 204: answer("Changed") },
    refusals: {
      400: "Malformed body, or a token that is invalid, used or expired (AUTH_EMAIL_CHANGE_TOKEN_INVALID)",
      409: "Another account took this email meanwhile",
    },
  }],
];

const accountDeletionRoute: AuthRoute = ["post", "/auth/delete_account", {
  operationId: "deleteAccount",
  summary: "Delete the signed-in user's account: confirmed with the password (or, for an account without one, a recent sign-in); every sign-in ends",
  security: BEARER_SECURITY,
  body: ACCOUNT_DELETION_SCHEMA,
  ok: { 204: answer("Deleted") },
  refusals: {
    400: invalid("Malformed body"),
    401: "Not signed in",
    403: "The password is not correct (AUTH_CURRENT_PASSWORD_INVALID), or a passwordless account's sign-in is not recent (AUTH_RECENT_SIGN_IN_REQUIRED)",
    429: "Too many wrong passwords (see Retry-After)",
  },
}];
