import type { OpenApiRegistry, SchemaObject } from "../../kernel/openapi-registry.js";

const TAG = "auth";
const json = (schema: SchemaObject) => ({ content: { "application/json": { schema } } });
const signedIn: SchemaObject = {
  type: "object",
  properties: {
    data: {
      type: "object",
      properties: {
        token: { type: "string", description: "Session token; also usable as `Authorization: Bearer`" },
        userId: { type: "string" },
        user: { type: "object", additionalProperties: true },
      },
    },
  },
};
const credentials: SchemaObject = {
  type: "object",
  properties: { email: { type: "string", format: "email" }, password: { type: "string", format: "password" }, name: { type: "string" } },
  required: ["email", "password"],
};

/**
 * Documents the session-auth endpoints of SPEC §4.2.
 *
 * @example
 * documentSessionRoutes(ctx.openapi);
 */
export function documentSessionRoutes(openapi: OpenApiRegistry): void {
  openapi.addTag({ name: TAG, description: "Authentication" });
  openapi.addSecurityScheme("sessionCookie", { type: "apiKey", in: "cookie", name: "better-auth.session_token" });
  openapi.addSecurityScheme("bearerAuth", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  const error = { description: "Error (ARCHITECTURE §4 shape)" };
  openapi.addOperation("post", "/api/auth/signup/email", {
    tags: [TAG],
    summary: "Create an account and a session (sets the httpOnly session cookie)",
    requestBody: { required: true, ...json(credentials) },
    responses: { 201: { description: "Signed up", ...json(signedIn) }, 403: error, 409: error, 429: error },
  });
  openapi.addOperation("post", "/api/auth/signin/email", {
    tags: [TAG],
    summary: "Sign in with email and password (sets the session cookie)",
    requestBody: { required: true, ...json(credentials) },
    responses: { 200: { description: "Signed in", ...json(signedIn) }, 401: error, 403: error, 429: error },
  });
  openapi.addOperation("get", "/api/auth/signin/{provider}", {
    tags: [TAG],
    summary: "Start social sign-in (github, google, apple): 302 to the provider",
    parameters: [
      { name: "provider", in: "path", required: true, schema: { type: "string", enum: ["github", "google", "apple"] } },
      { name: "callbackURL", in: "query", required: false, schema: { type: "string" }, description: "Trusted-origin URL to land on afterwards" },
    ],
    responses: { 302: { description: "Redirect to the provider" }, 403: error, 404: error },
  });
  openapi.addOperation("get", "/api/auth/callback/{provider}", {
    tags: [TAG],
    summary: "The provider's redirect target: creates the session and redirects to callbackURL",
    parameters: [{ name: "provider", in: "path", required: true, schema: { type: "string" } }],
    responses: { 302: { description: "Redirect to callbackURL" } },
  });
  openapi.addOperation("post", "/api/auth/signout", {
    tags: [TAG],
    summary: "End the session",
    responses: { 200: { description: "Signed out" }, 403: error },
  });
  openapi.addOperation("get", "/api/auth/session", {
    tags: [TAG],
    summary: "The current session's user, or null",
    security: [{ sessionCookie: [] }, { bearerAuth: [] }],
    responses: { 200: { description: "Session", ...json({ type: "object", properties: { data: { type: ["object", "null"] } } }) } },
  });
}
