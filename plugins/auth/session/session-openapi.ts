import type { OpenApiRegistry, SchemaObject } from "../../../kernel/openapi-registry.js";
import { addAuthOperations, answer, BEARER_SECURITY, dataOf, OWN_SIGN_IN_SCHEMA, passwordRoutes } from "../openapi.js";

const SESSION_COOKIE = "sessionCookie";

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
  openapi.addSecurityScheme(SESSION_COOKIE, { type: "apiKey", in: "cookie", name: "better-auth.session_token" });
  const provider = { name: "provider", in: "path" as const, required: true, schema: { type: "string" as const, enum: ["github", "google", "apple"] } };
  addAuthOperations(openapi, [
    ...passwordRoutes({ signUp: "/api/auth/signup/email", signIn: "/api/auth/signin/email" }, { signUpBody: credentials, signInBody: credentials, signedIn, session: true }),
    ["get", "/api/auth/signin/{provider}", {
      operationId: "startSocialSignIn",
      summary: "Start social sign-in (github, google, apple): 302 to the provider",
      parameters: [provider, { name: "callbackURL", in: "query", required: false, schema: { type: "string" }, description: "Trusted-origin URL to land on afterwards" }],
      ok: { 302: answer("Redirect to the provider") },
      refusals: { 400: "callbackURL not on a trusted origin", 404: "Provider not configured" },
    }],
    ["get", "/api/auth/callback/{provider}", {
      operationId: "finishSocialSignIn",
      summary: "The provider's redirect target: creates the session and redirects to callbackURL",
      parameters: [{ ...provider, schema: { type: "string" } }],
      ok: { 302: answer("Redirect to callbackURL") },
    }],
    ["post", "/api/auth/signout", {
      operationId: "logOut",
      summary: "End the session",
      ok: { 200: answer("Signed out") },
      refusals: { 403: "Origin not trusted" },
    }],
    ["get", "/api/auth/session", {
      operationId: "readSession",
      summary: "The current session's user, or null",
      security: [{ [SESSION_COOKIE]: [] }, ...BEARER_SECURITY],
      ok: { 200: answer("Session", { type: "object", properties: { data: { type: ["object", "null"] } } }) },
    }],
    ["get", "/api/auth/sessions", {
      operationId: "listSignIns",
      summary: "The signed-in user's sessions (devices), newest activity first",
      security: [{ [SESSION_COOKIE]: [] }, ...BEARER_SECURITY],
      ok: { 200: answer("Sessions", dataOf({ type: "array", items: OWN_SIGN_IN_SCHEMA, maxItems: 100 })) },
      refusals: { 401: "Not signed in" },
    }],
    ["delete", "/api/auth/sessions/{id}", {
      operationId: "endSignIn",
      summary: "Sign out one device: that session is refused from the next request on",
      security: [{ [SESSION_COOKIE]: [] }, ...BEARER_SECURITY],
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" }, description: "A session id from GET /api/auth/sessions" }],
      ok: { 204: answer("Signed out there") },
      refusals: { 401: "Not signed in", 403: "Origin not trusted", 404: "No session of the caller with this id" },
    }],
  ]);
}
