import type { OpenApiRegistry, OperationObject, SchemaObject } from "../../kernel/openapi-registry.js";

const TAG = "auth";
const bearer = [{ bearerAuth: [] }];

const json = (schema: SchemaObject) => ({ content: { "application/json": { schema } } });
const dataOf = (schema: SchemaObject): SchemaObject => ({ type: "object", properties: { data: schema }, required: ["data"] });
const ref = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` }) as SchemaObject;
const error = (description: string) => ({ description, ...json(ref("AuthError")) });

const schemas: Record<string, SchemaObject> = {
  AuthError: {
    type: "object",
    description: "Error response (ARCHITECTURE §4)",
    properties: {
      errors: {
        type: "array",
        items: {
          type: "object",
          properties: {
            status: { type: "string" },
            title: { type: "string" },
            detail: { type: "string" },
            code: { type: "string", description: "Stable code, e.g. AUTH_INVALID_CREDENTIALS" },
            meta: { type: "object" },
          },
        },
      },
      requestId: { type: "string" },
    },
  },
  AuthTokens: {
    type: "object",
    properties: {
      token: { type: "string", description: "Access token (JWT); send as `Authorization: Bearer <token>`" },
      refreshToken: { type: "string", description: "Single-use refresh token for POST /auth/refresh_token" },
      userId: { type: "string", description: "The signed-in user's id" },
    },
    required: ["token", "refreshToken", "userId"],
  },
  AuthUser: {
    type: "object",
    description: "The signed-in user (the host's user document, without secrets)",
    properties: {
      id: { type: "string", description: "User id" },
      email: { type: "string", description: "Sign-in email" },
      admin: { type: "boolean", description: "Administrator flag" },
    },
    additionalProperties: true,
  },
};

const credentials: SchemaObject = {
  type: "object",
  properties: {
    email: { type: "string", format: "email", description: "Email (case-insensitive)" },
    password: { type: "string", format: "password", description: "Password" },
  },
  required: ["email", "password"],
};

/**
 * Documents the JWT routes (and the GitHub ones when configured) in the app's OpenAPI document.
 *
 * @example
 * documentJwtRoutes(ctx.openapi, { github: true, profileFields: ["name"] });
 */
export function documentJwtRoutes(openapi: OpenApiRegistry, options: { github: boolean; profileFields: readonly string[] }): void {
  openapi.addTag({ name: TAG, description: "Authentication" });
  openapi.addSecurityScheme("bearerAuth", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  for (const [name, schema] of Object.entries(schemas)) openapi.addSchema(name, schema);

  const profile: Record<string, SchemaObject> = Object.fromEntries(
    options.profileFields.map((field) => [field, { description: "Profile field allowed by the host" }]),
  );
  const signupBody: SchemaObject = { ...credentials, properties: { ...credentials.properties, ...profile } };
  const op = (operation: OperationObject): OperationObject => ({ tags: [TAG], ...operation });

  openapi.addOperation("post", "/auth/signup", op({
    summary: "Create an account (refused when SIGNUP_DISABLED=true)",
    requestBody: { required: true, ...json(signupBody) },
    responses: {
      201: { description: "Signed up", ...json(dataOf(ref("AuthTokens"))) },
      400: error("Invalid body, weak password or a field that may not be set"),
      403: error("Sign-up disabled"),
      409: error("Email already registered"),
      429: error("Too many sign-ups from this IP"),
    },
  }));
  openapi.addOperation("post", "/auth/login", op({
    summary: "Sign in with email and password",
    requestBody: { required: true, ...json(credentials) },
    responses: {
      200: { description: "Signed in", ...json(dataOf(ref("AuthTokens"))) },
      401: error("Wrong email or password, or the user is disabled"),
      429: error("Too many failed attempts (see Retry-After)"),
    },
  }));
  openapi.addOperation("post", "/auth/refresh_token", op({
    summary: "Exchange a refresh token for a new token pair (the old refresh token is used up)",
    requestBody: { required: true, ...json({ type: "object", properties: { refreshToken: { type: "string" } }, required: ["refreshToken"] }) },
    responses: {
      200: {
        description: "Rotated",
        ...json(dataOf({ type: "object", properties: { token: { type: "string" }, refreshToken: { type: "string" } }, required: ["token", "refreshToken"] })),
      },
      401: error("Invalid, expired, revoked or reused refresh token; disabled user"),
    },
  }));
  openapi.addOperation("get", "/auth/me", op({
    summary: "The signed-in user",
    security: bearer,
    responses: { 200: { description: "User", ...json(dataOf(ref("AuthUser"))) }, 401: error("Not signed in") },
  }));
  openapi.addOperation("patch", "/auth/me", op({
    summary: "Update the signed-in user's profile (host-allowed fields only)",
    security: bearer,
    requestBody: { required: true, ...json({ type: "object", properties: profile, additionalProperties: false }) },
    responses: {
      200: { description: "Updated user", ...json(dataOf(ref("AuthUser"))) },
      400: error("A field that may not be set"),
      401: error("Not signed in"),
    },
  }));

  if (!options.github) return;
  const query = (name: string, description: string) => ({ name, in: "query" as const, required: false, schema: { type: "string" as const }, description });
  openapi.addOperation("get", "/auth/github", op({
    summary: "Start GitHub sign-in (302 to GitHub)",
    parameters: [
      query("returnTo", "Where to send the browser afterwards; must be on an allowlisted origin"),
      query("codeChallenge", "Optional S256 challenge; the code exchange must then send its verifier"),
    ],
    responses: { 302: { description: "Redirect to GitHub" }, 400: error("returnTo not allowed") },
  }));
  openapi.addOperation("get", "/auth/github/callback", op({
    summary: "GitHub's redirect target; sends the browser to returnTo with authCode/linkCode or authError",
    responses: {
      200: { description: "No returnTo: the one-time code", ...json(dataOf({ type: "object", properties: { authCode: { type: "string" }, linkCode: { type: "string" } } })) },
      302: { description: "Redirect to returnTo" },
      400: error("Invalid or expired state"),
    },
  }));
  openapi.addOperation("post", "/auth/github/token", op({
    summary: "Redeem a one-time authCode for tokens",
    requestBody: { required: true, ...json({ type: "object", properties: { authCode: { type: "string" }, codeVerifier: { type: "string" } }, required: ["authCode"] }) },
    responses: { 200: { description: "Signed in", ...json(dataOf(ref("AuthTokens"))) }, 400: error("Invalid or expired code") },
  }));
  openapi.addOperation("get", "/auth/github/link", op({
    summary: "Start linking GitHub to the signed-in user: the GitHub URL to open",
    security: bearer,
    parameters: [query("returnTo", "Where the callback sends the browser (allowlisted origin)")],
    responses: { 200: { description: "URL", ...json(dataOf({ type: "object", properties: { url: { type: "string" } } })) }, 401: error("Not signed in") },
  }));
  openapi.addOperation("post", "/auth/github/link", op({
    summary: "Finish linking with the linkCode the callback returned",
    security: bearer,
    requestBody: { required: true, ...json({ type: "object", properties: { linkCode: { type: "string" } }, required: ["linkCode"] }) },
    responses: {
      200: { description: "Linked", ...json(dataOf(ref("AuthUser"))) },
      400: error("Invalid code, or a code for another user"),
      409: error("GitHub account linked to another user"),
    },
  }));
  openapi.addOperation("delete", "/auth/github/unlink", op({
    summary: "Unlink GitHub (refused when it is the account's only way to sign in)",
    security: bearer,
    responses: { 200: { description: "Unlinked", ...json(dataOf(ref("AuthUser"))) }, 409: error("Last sign-in method") },
  }));
}
