import { createHash } from "node:crypto";
import {
  OpenApiBuilder,
  type OpenAPIObject,
  type OperationObject,
  type PathItemObject,
  type ReferenceObject,
  type ResponseObject,
  type SchemaObject,
  type SecuritySchemeObject,
  type TagObject,
} from "openapi3-ts/oas31";
import { defineErrors } from "./errors.js";
import { SHARED_COMPONENTS } from "./openapi-shared-components.js";

export type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from "openapi3-ts/oas31";

export const OpenApiErrors = defineErrors("OPENAPI", {
  DUPLICATE_OPERATION: {
    message: (method: string, path: string) => `OpenAPI already documents ${method.toUpperCase()} ${path}`,
  },
  DUPLICATE_OPERATION_ID: {
    message: (operationId: string, method: string, path: string, existing: string) =>
      `OpenAPI operationId "${operationId}" of ${method.toUpperCase()} ${path} is already used by ${existing}`,
  },
  DUPLICATE_COMPONENT: {
    message: (kind: string, name: string) => `OpenAPI component ${kind} "${name}" is already defined differently`,
  },
});

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** The serialized document with its strong ETag (SHA-256 of the exact bytes served). */
export interface SerializedOpenApi {
  readonly json: string;
  readonly etag: string;
}

/**
 * The kernel's OpenAPI 3.1 document, built by plugins as they start. Paths may be given in
 * express form (`/todos/:id`) and are stored in OpenAPI form (`/todos/{id}`). Serialization is
 * cached until the next contribution, so `GET /openapi.json` costs nothing per request. The
 * shared error schemas (`ErrorResponse`, `ValidationErrorResponse`), error responses
 * (`sharedResponse("Unauthorized")`...), the `bearerAuth` scheme and the one relative server
 * (`.`, the app wherever it is mounted) are declared here, once.
 *
 * @example
 * ctx.openapi.addOperation("get", "/todos/:id", { summary: "Read a todo", responses: { 200: { description: "OK" } } });
 * ctx.openapi.addSchema("Todo", { type: "object", properties: { title: { type: "string" } } });
 */
export class OpenApiRegistry {
  private readonly builder: OpenApiBuilder;
  private cached?: SerializedOpenApi;
  // operationId → "METHOD /path", so a clash names the operation that already holds the id.
  private readonly operationIds = new Map<string, string>();

  constructor(info: { title: string; version: string; description?: string }) {
    this.builder = OpenApiBuilder.create({
      openapi: "3.1.0",
      info: { title: info.title, version: info.version, description: info.description },
      // Relative to the document's own URL, so "Try it out" and clients that resolve it call the
      // app wherever it is mounted (`/api/openapi.json` → `/api/todos`), behind a proxy that strips
      // a prefix too. Not the request's base URL: the bytes (and their strong ETag) stay one per app.
      servers: [{ url: ".", description: "This app, relative to the URL this document was served from" }],
      paths: {},
      components: {
        schemas: { ...SHARED_COMPONENTS.schemas },
        securitySchemes: { ...SHARED_COMPONENTS.securitySchemes },
        responses: { ...SHARED_COMPONENTS.responses },
      },
    });
  }

  /**
   * Documents one operation. Documenting the same method and path twice is an error, and so is
   * reusing an `operationId`: client generators turn ids into method names, so they must be unique.
   */
  addOperation(method: (typeof METHODS)[number], path: string, operation: OperationObject): this {
    const openApiPath = toOpenApiPath(path);
    const existing = this.builder.rootDoc.paths?.[openApiPath];
    if (existing?.[method]) throw OpenApiErrors.DUPLICATE_OPERATION(method, openApiPath);
    const { operationId } = operation;
    if (operationId !== undefined) {
      const holder = this.operationIds.get(operationId);
      if (holder !== undefined) throw OpenApiErrors.DUPLICATE_OPERATION_ID(operationId, method, openApiPath, holder);
      this.operationIds.set(operationId, `${method.toUpperCase()} ${openApiPath}`);
    }
    this.builder.addPath(openApiPath, { [method]: operation });
    return this.changed();
  }

  /** True when an operation already uses `operationId` (lets a contributor pick another). */
  hasOperationId(operationId: string): boolean {
    return this.operationIds.has(operationId);
  }

  /** Merges a whole path item (every method in it must be new). */
  addPath(path: string, item: PathItemObject): this {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) this.addOperation(method, path, operation);
    }
    return this;
  }

  /** Adds a named schema; re-adding an identical one is allowed (two routers, one model). */
  addSchema(name: string, schema: SchemaObject | ReferenceObject): this {
    this.addComponent("schemas", name, schema);
    return this;
  }

  addResponse(name: string, response: ResponseObject | ReferenceObject): this {
    this.addComponent("responses", name, response);
    return this;
  }

  addSecurityScheme(name: string, scheme: SecuritySchemeObject): this {
    this.addComponent("securitySchemes", name, scheme);
    return this;
  }

  /**
   * Declares a tag in the document's `tags` list (where Swagger UI reads its description). The
   * first declaration of a name wins; later ones are ignored, so every router of one model may
   * declare its tag.
   */
  addTag(tag: TagObject): this {
    const tags = this.builder.rootDoc.tags ?? [];
    if (!tags.some((existing) => existing.name === tag.name)) this.builder.addTag(tag);
    return this.changed();
  }

  /** True when a component of that kind and name exists (lets plugins share one definition). */
  hasComponent(kind: "schemas" | "responses" | "securitySchemes", name: string): boolean {
    return this.builder.rootDoc.components?.[kind]?.[name] !== undefined;
  }

  /** The live document. Treat it as read-only; contribute through the add* methods. */
  document(): OpenAPIObject {
    return this.builder.getSpec();
  }

  /** JSON text and ETag, computed once per change. */
  serialized(): SerializedOpenApi {
    if (!this.cached) {
      const json = JSON.stringify(this.builder.getSpec());
      this.cached = { json, etag: `"${createHash("sha256").update(json).digest("hex")}"` };
    }
    return this.cached;
  }

  private addComponent(kind: "schemas" | "responses" | "securitySchemes", name: string, value: object): void {
    const components = (this.builder.rootDoc.components ??= {});
    const section = (components[kind] ??= {}) as Record<string, object>;
    const existing = section[name];
    if (existing !== undefined) {
      if (JSON.stringify(existing) !== JSON.stringify(value)) throw OpenApiErrors.DUPLICATE_COMPONENT(kind, name);
      return;
    }
    section[name] = value;
    this.changed();
  }

  private changed(): this {
    this.cached = undefined;
    return this;
  }
}

/**
 * Converts an express route path to an OpenAPI path template.
 *
 * @example
 * toOpenApiPath("/todos/:id"); // "/todos/{id}"
 */
export function toOpenApiPath(path: string): string {
  const templated = path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
  const trimmed = templated.length > 1 ? templated.replace(/\/+$/, "") : templated;
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}
