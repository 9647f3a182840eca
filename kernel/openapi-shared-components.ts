import type { SchemaObject, SecuritySchemeObject } from "openapi3-ts/oas31";

/** The security scheme of bearer-token routes (every auth provider accepts these tokens). */
export const BEARER_SCHEME = "bearerAuth";

/** The shared error responses every plugin's operations may reference. */
export type SharedResponse =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "Conflict"
  | "PayloadTooLarge"
  | "UnsupportedMediaType"
  | "TooManyRequests";

const ERROR_OBJECT: SchemaObject = {
  type: "object",
  required: ["status", "title"],
  properties: {
    status: { type: "string", description: "The HTTP status, as a string" },
    title: { type: "string", description: "A short, human-readable summary" },
    detail: { type: "string", description: "What went wrong in this occurrence" },
    code: { type: "string", description: "A stable machine-readable code (docs/errors.md), e.g. REST_NOT_FOUND" },
    source: {
      type: "object",
      properties: {
        pointer: { type: "string", description: "JSON pointer to the offending value" },
        parameter: { type: "string", description: "The offending query parameter" },
      },
    },
    meta: {
      type: "object",
      description: "Extra details; validation errors carry `validationErrors`, a JSON string of [{path, message}]",
      additionalProperties: true,
    },
  },
};

const ERROR_RESPONSE: SchemaObject = {
  type: "object",
  required: ["errors"],
  properties: {
    errors: { type: "array", items: { $ref: "#/components/schemas/ErrorObject" } },
    requestId: { type: "string", description: "Correlation id (also the X-Request-ID header)" },
  },
};

// SPEC §7: one error whose meta.validationErrors lists every problem as JSON text.
const VALIDATION_ERROR_RESPONSE: SchemaObject = {
  type: "object",
  required: ["errors"],
  properties: {
    errors: {
      type: "array",
      items: {
        allOf: [
          { $ref: "#/components/schemas/ErrorObject" },
          {
            type: "object",
            properties: {
              title: { const: "Request validation failed" },
              meta: {
                type: "object",
                properties: { validationErrors: { type: "string", description: "JSON text of [{path, message}]" } },
              },
            },
          },
        ],
      },
    },
    requestId: { type: "string", description: "Correlation id (also the X-Request-ID header)" },
  },
};

const schemaRef = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

// A 400 is either SPEC §7's validation error or another refusal of the request itself
// (HTTP_MALFORMED_BODY, HTTP_MALFORMED_PATH, VALIDATION_FAILED with meta.fields, MCP_INVALID_REQUEST...):
// the schema must accept both, and says which one a client can count on for field problems.
const BAD_REQUEST: SchemaObject = {
  anyOf: [schemaRef("ValidationErrorResponse"), schemaRef("ErrorResponse")],
};

const RESPONSES: Record<SharedResponse, { description: string; schema: string | SchemaObject }> = {
  BadRequest: {
    description:
      "The request failed validation (ValidationErrorResponse: title `Request validation failed`, meta.validationErrors) " +
      "or was malformed (ErrorResponse, e.g. HTTP_MALFORMED_BODY, HTTP_MALFORMED_PATH)",
    schema: BAD_REQUEST,
  },
  Unauthorized: { description: "Authentication is required", schema: "ErrorResponse" },
  Forbidden: { description: "The caller may not do this", schema: "ErrorResponse" },
  NotFound: { description: "No such record (or a malformed id)", schema: "ErrorResponse" },
  Conflict: { description: "A unique value is already taken", schema: "ErrorResponse" },
  // Every route that takes a JSON body may answer these two (the app's JSON parser and requireJsonBody).
  PayloadTooLarge: { description: "The body is larger than the app's JSON limit (HTTP_PAYLOAD_TOO_LARGE; `bodyLimit`, 1 MB by default)", schema: "ErrorResponse" },
  UnsupportedMediaType: { description: "The body is not JSON (HTTP_UNSUPPORTED_MEDIA_TYPE), or its encoding or charset is not supported", schema: "ErrorResponse" },
  TooManyRequests: { description: "Too many requests or attempts (HTTP_RATE_LIMITED, AUTH_RATE_LIMITED); retry after the Retry-After header's seconds", schema: "ErrorResponse" },
};

/** What every OpenAPI document of an svc app declares once, before any plugin contributes. */
export const SHARED_COMPONENTS: {
  readonly schemas: Readonly<Record<string, SchemaObject>>;
  readonly responses: Readonly<Record<SharedResponse, { description: string; content: { "application/json": { schema: SchemaObject } } }>>;
  readonly securitySchemes: Readonly<Record<string, SecuritySchemeObject>>;
} = {
  schemas: { ErrorObject: ERROR_OBJECT, ErrorResponse: ERROR_RESPONSE, ValidationErrorResponse: VALIDATION_ERROR_RESPONSE },
  responses: Object.fromEntries(
    Object.entries(RESPONSES).map(([name, { description, schema }]) => [
      name,
      { description, content: { "application/json": { schema: typeof schema === "string" ? schemaRef(schema) : schema } } },
    ]),
  ) as (typeof SHARED_COMPONENTS)["responses"],
  securitySchemes: { [BEARER_SCHEME]: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
};

/**
 * A reference to one of the shared error responses, for an operation's `responses`.
 *
 * @example
 * ctx.openapi.addOperation("get", "/reports", { responses: { 200: ok, 401: sharedResponse("Unauthorized") } });
 */
export function sharedResponse(name: SharedResponse): { $ref: string } {
  return { $ref: `#/components/responses/${name}` };
}

const SHARED_RESPONSE_STATUS: Readonly<Record<SharedResponse, string>> = {
  BadRequest: "400",
  Unauthorized: "401",
  Forbidden: "403",
  NotFound: "404",
  Conflict: "409",
  PayloadTooLarge: "413",
  UnsupportedMediaType: "415",
  TooManyRequests: "429",
};

/**
 * References to shared error responses, keyed by their status, for an operation's `responses`.
 *
 * @example
 * ctx.openapi.addOperation("post", "/reports", { responses: { 201: created, ...sharedResponses(["BadRequest", "Unauthorized"]) } });
 */
export function sharedResponses(names: readonly SharedResponse[]): Record<string, { $ref: string }> {
  return Object.fromEntries(names.map((name) => [SHARED_RESPONSE_STATUS[name], sharedResponse(name)]));
}
