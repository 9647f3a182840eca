import type { OpenApiRegistry, ParameterObject, SchemaObject } from "../../../kernel/openapi-registry.js";
import { addAuthOperations, answer, BEARER_SECURITY, dataOf, documentAuthComponents, schemaRef } from "../openapi.js";

function query(name: string, description: string): ParameterObject {
  return { name, in: "query", required: false, schema: { type: "string" }, description };
}

/** `{<name>: string}` (required), plus optional string fields. */
function codeBody(name: string, ...optional: string[]): SchemaObject {
  const properties = Object.fromEntries([name, ...optional].map((field) => [field, { type: "string" as const }]));
  return { type: "object", properties, required: [name] };
}

/**
 * Documents the GitHub sign-in and linking routes (mounted when `githubAuth` is configured).
 *
 * @example
 * documentGitHubRoutes(ctx.openapi);
 */
export function documentGitHubRoutes(openapi: OpenApiRegistry): void {
  documentAuthComponents(openapi);
  const user = answer("User", dataOf(schemaRef("AuthUser")));
  addAuthOperations(openapi, [
    ["get", "/auth/github", {
      operationId: "startGitHubSignIn",
      summary: "Start GitHub sign-in (302 to GitHub)",
      parameters: [
        query("returnTo", "Where to send the browser afterwards; must be on an allowlisted origin"),
        query("codeChallenge", "Optional S256 challenge; the code exchange must then send its verifier"),
      ],
      ok: { 302: answer("Redirect to GitHub") },
      refusals: { 400: "returnTo not allowed, or a malformed codeChallenge" },
    }],
    ["get", "/auth/github/callback", {
      operationId: "finishGitHubSignIn",
      summary: "GitHub's redirect target; sends the browser to returnTo with authCode/linkCode or authError",
      ok: {
        200: answer("No returnTo: the one-time code (authCode, or linkCode when linking)", dataOf({ ...codeBody("authCode", "linkCode"), required: [] })),
        302: answer("Redirect to returnTo"),
      },
      refusals: { 400: "Invalid or expired state" },
    }],
    ["post", "/auth/github/token", {
      operationId: "redeemGitHubAuthCode",
      summary: "Redeem a one-time authCode for tokens",
      body: codeBody("authCode", "codeVerifier"),
      ok: { 200: answer("Signed in", dataOf(schemaRef("AuthTokens"))) },
      refusals: { 400: "Invalid or expired code" },
    }],
    ["get", "/auth/github/link", {
      operationId: "startGitHubLink",
      summary: "Start linking GitHub to the signed-in user: the GitHub URL to open",
      security: BEARER_SECURITY,
      parameters: [query("returnTo", "Where the callback sends the browser (allowlisted origin)")],
      ok: { 200: answer("URL", dataOf(codeBody("url"))) },
      refusals: { 401: "Not signed in" },
    }],
    ["post", "/auth/github/link", {
      operationId: "linkGitHub",
      summary: "Finish linking with the linkCode the callback returned",
      security: BEARER_SECURITY,
      body: codeBody("linkCode"),
      ok: { 200: user },
      refusals: { 400: "Invalid code, or a code for another user", 409: "GitHub account linked to another user" },
    }],
    ["delete", "/auth/github/unlink", {
      operationId: "unlinkGitHub",
      summary: "Unlink GitHub (refused when it is the account's only way to sign in)",
      security: BEARER_SECURITY,
      ok: { 200: user },
      refusals: { 409: "Last sign-in method" },
    }],
  ]);
}
