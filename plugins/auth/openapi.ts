import { ACCOUNT_SIGN_IN_SCHEMA } from "../../contracts/accounts.js";
import type { OpenApiRegistry, OperationObject, ParameterObject, ResponseObject, SchemaObject } from "../../kernel/openapi-registry.js";
import { BEARER_SCHEME } from "../../kernel/openapi-shared-components.js";

// The auth plugin's one tag: every provider's operations carry it (docs/rest.md, "Tags").
const AUTH_TAG = "auth";
const AUTH_TAG_DESCRIPTION = "Sign-up, sign-in, tokens, sessions and the signed-in user";

/** Operations that need `Authorization: Bearer <token>`. */
export const BEARER_SECURITY: NonNullable<OperationObject["security"]> = [{ [BEARER_SCHEME]: [] }];

/** `{data: <schema>}`, the envelope of every auth answer. */
export function dataOf(schema: SchemaObject): SchemaObject {
  return { type: "object", properties: { data: schema }, required: ["data"] };
}

/** A reference to a component schema. */
export function schemaRef(name: string): SchemaObject {
  return { $ref: `#/components/schemas/${name}` } as SchemaObject;
}

/** A successful answer: a description and, when it has one, the JSON body's schema. */
export function answer(description: string, schema?: SchemaObject): ResponseObject {
  return schema ? { description, content: { "application/json": { schema } } } : { description };
}

/** Why an operation answers with an error status; `invalid(...)` for SPEC §7's validation body. */
export type Refusal = string | { readonly validation: string };

/**
 * A 400 whose body is always SPEC §7's validation error (a 400 that can also be something else
 * is documented with the general error body).
 *
 * @example
 * refusals: { 400: invalid("Malformed email or password"), 401: "Wrong email or password" }
 */
export function invalid(reason: string): Refusal {
  return { validation: reason };
}

/**
 * One entry of the caller's own sign-in list (`GET /auth/sign_ins`, `GET /api/auth/sessions`):
 * an account's sign-in, and whether it is the one making the request.
 */
export const OWN_SIGN_IN_SCHEMA: SchemaObject = {
  ...ACCOUNT_SIGN_IN_SCHEMA,
  properties: { ...ACCOUNT_SIGN_IN_SCHEMA.properties, current: { type: "boolean", description: "Whether this is the sign-in making the request" } },
  required: [...(ACCOUNT_SIGN_IN_SCHEMA.required ?? []), "current"],
};

/** One auth operation, described by what differs between them. */
export interface AuthOperation {
  /** Unique in the document and stable across releases: client generators name methods after it. */
  operationId: string;
  summary: string;
  /** The JSON request body (required when given). */
  body?: SchemaObject;
  parameters?: ParameterObject[];
  security?: OperationObject["security"];
  /** Status → success answer. */
  ok: Record<number, ResponseObject>;
  /** Status → why it is refused; each gets the shared error body. */
  refusals?: Record<number, Refusal>;
}

function toOperation(operation: AuthOperation): OperationObject {
  const responses: Record<string, ResponseObject> = { ...operation.ok };
  for (const [status, refusal] of Object.entries(operation.refusals ?? {})) {
    const validation = typeof refusal !== "string";
    responses[status] = answer(validation ? refusal.validation : refusal, schemaRef(validation ? "ValidationErrorResponse" : "ErrorResponse"));
  }
  const result: OperationObject = { tags: [AUTH_TAG], operationId: operation.operationId, summary: operation.summary, responses };
  if (operation.body) result.requestBody = { required: true, content: { "application/json": { schema: operation.body } } };
  if (operation.parameters) result.parameters = operation.parameters;
  if (operation.security) result.security = operation.security;
  return result;
}

/** One documented route: method, path, operation. */
export type AuthRoute = [method: "get" | "post" | "patch" | "delete", path: string, operation: AuthOperation];

/**
 * Email sign-up and sign-in as both providers document them: the same answers and refusals
 * (malformed body, wrong password, taken email, rate limits); session auth adds its cookie and
 * its Origin check.
 *
 * @example
 * addAuthOperations(ctx.openapi, passwordRoutes({ signUp: "/auth/signup", signIn: "/auth/login" }, { signUpBody, signInBody, signedIn: tokens }));
 */
export function passwordRoutes(
  paths: { signUp: string; signIn: string },
  spec: { signUpBody: SchemaObject; signInBody: SchemaObject; signedIn: SchemaObject; session?: boolean },
): AuthRoute[] {
  const cookie = spec.session ? " (sets the httpOnly session cookie)" : "";
  const untrusted: Record<number, Refusal> = spec.session ? { 403: "Origin not trusted" } : {};
  return [
    ["post", paths.signUp, {
      // The same ids under either provider: an app runs one, and clients call them alike.
      operationId: "signUp",
      summary: `Create an account${cookie}; refused when SIGNUP_DISABLED=true`,
      body: spec.signUpBody,
      ok: { 201: answer("Signed up", spec.signedIn) },
      refusals: {
        400: spec.session ? "Malformed email or password, or a weak password" : "Malformed email or password, a weak password or a field that may not be set",
        403: spec.session ? "Sign-up disabled, or Origin not trusted" : "Sign-up disabled",
        409: "Email already registered",
        429: "Too many sign-ups from this IP",
      },
    }],
    ["post", paths.signIn, {
      operationId: "logIn",
      summary: `Sign in with email and password${cookie}`,
      body: spec.signInBody,
      ok: { 200: answer("Signed in", spec.signedIn) },
      refusals: {
        400: invalid("Malformed email or password"),
        401: "Wrong email or password, or the user is disabled",
        ...untrusted,
        429: "Too many failed attempts (see Retry-After)",
      },
    }],
  ];
}

/**
 * Adds operations under the `auth` tag (declared once, whichever provider documents first). The
 * error bodies and `bearerAuth` are the registry's shared components.
 *
 * @example
 * addAuthOperations(ctx.openapi, [["get", "/auth/me", { operationId: "readMe", summary: "The signed-in user", security: BEARER_SECURITY, ok: { 200: answer("User", user) }, refusals: { 401: "Not signed in" } }]]);
 */
export function addAuthOperations(openapi: OpenApiRegistry, operations: readonly AuthRoute[]): void {
  openapi.addTag({ name: AUTH_TAG, description: AUTH_TAG_DESCRIPTION });
  for (const [method, path, operation] of operations) openapi.addOperation(method, path, toOperation(operation));
}

const schemas: Record<string, SchemaObject> = {
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

/**
 * The schemas the JWT and GitHub operations share (`AuthTokens`, `AuthUser`).
 *
 * @example
 * documentAuthComponents(ctx.openapi);
 * const tokens = dataOf(schemaRef("AuthTokens"));
 */
export function documentAuthComponents(openapi: OpenApiRegistry): void {
  for (const [name, schema] of Object.entries(schemas)) openapi.addSchema(name, schema);
}
