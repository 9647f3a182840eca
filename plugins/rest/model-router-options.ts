import type { Request } from "express";
import type { Connection, HydratedDocument, Schema } from "mongoose";
import type { SchemaObject } from "openapi3-ts/oas31";
import type { ModelMcpOptions, ModelSyncOptions } from "../../contracts/model-registry.js";
import type { RequestUser } from "../../contracts/request-user.js";
import type { QueryFilter, QueryFilterObject } from "./owner-query-filter.js";
import type { MethodPermissions, RestMethod } from "./permissions.js";
import type { ThrottleRate } from "../throttle/index.js";
import type { IdempotencyOptions } from "../idempotency/index.js";
import type { ValidationIssue } from "../validation/index.js";

/**
 * Any mongoose model whose documents have the fields `T`, whatever its virtuals, instance
 * methods and query helpers (mongoose's full `Model` type is invariant in those, so a structural
 * subset keeps `modelRouter("/todos", Todo, ...)` type-checking for every model). `T` is read
 * from `castObject`, which mongoose types as returning the model's raw document type: the
 * schema's inferred fields, or the interface given to `new Schema<T>()` / `mongoose.model<T>()`.
 *
 * @example
 * const todos: RestModel<{ title?: string | null; done?: boolean | null }> = mongoose.model("Todo", todoSchema);
 */
export interface RestModel<T> {
  readonly modelName: string;
  readonly schema: Schema;
  readonly db: Connection;
  castObject(obj: Record<string, unknown>, options?: { ignoreCastErrors?: boolean }): T;
}

/**
 * A request body as hooks see it: the validated JSON object, with the model's fields (each
 * optional). Validation refuses or strips unknown fields (unless it is off for the route), so
 * reading one — a misspelt field, say — is a type error rather than an `unknown`.
 *
 * @example
 * const trimTitle = (body: RequestBody<TodoFields>) => ({ ...body, title: body.title?.trim() });
 */
export type RequestBody<T> = Partial<T>;

/** A document as responses carry it: plain data, ids as strings once serialized. */
export type ResponseDocument = Record<string, unknown>;

/** Something a hook may return directly or through a promise. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * A path to populate in responses, and the fields of the referenced documents to include. The
 * field list is required so a populate never leaks more of another record than declared; `_id`
 * is always included.
 */
export interface PopulatePath {
  readonly path: string;
  readonly fields: readonly string[];
}

/** Per-router validation settings (the app's `configureOpenApiValidator` settings are the defaults). */
export interface ModelRouterValidationOptions {
  /** Validate POST bodies (default: the app's `validateRequests`). */
  validateCreate?: boolean;
  /** Validate PATCH bodies (default: the app's `validateRequests`). */
  validateUpdate?: boolean;
  /**
   * What to do with body fields the schema does not declare: `reject` (400, the default) or
   * `remove` (strip them and tell `onAdditionalPropertiesRemoved`). Read-only fields and
   * `$`-prefixed keys are rejected either way.
   */
  additionalProperties?: "reject" | "remove";
  /** Fields left out of the create schema (e.g. filled in by `preCreate`). */
  excludeFromCreate?: readonly string[];
  /** Fields left out of the update schema (e.g. filled in by `preUpdate`). */
  excludeFromUpdate?: readonly string[];
  /** Replaces the app's `onValidationError` for this router. */
  onError?: (issues: ValidationIssue[], req: Request) => unknown;
  /** Replaces the app's `onAdditionalPropertiesRemoved` for this router. */
  onAdditionalPropertiesRemoved?: (properties: string[], req: Request) => void;
}

export type { ModelMcpOptions, ModelSyncOptions, SyncScope } from "../../contracts/model-registry.js";

/** How the admin plugin shows this model (SPEC §2.6): the one admin model-config type, from contracts. */
export type ModelAdminOptions = import("../../contracts/admin-model-config.js").ModelAdminOptions;

/**
 * The legacy response shaper.
 *
 * @deprecated Use `responseHandler(doc, method)`.
 */
export interface LegacyTransformer<T> {
  /** Shapes an outgoing document for a user. */
  serialize?: (doc: ResponseDocument, user: RequestUser | undefined) => unknown;
  /** Shapes an incoming create/update body before validation. */
  transform?: (body: RequestBody<T>, method: "create" | "update", user: RequestUser | undefined) => RequestBody<T>;
}

/**
 * How a model router's operations appear in `/openapi.json`. Operation ids are `list<Plural>`,
 * `create<Singular>`, `read<Singular>`, `update<Singular>` and `delete<Singular>`, from the model
 * name unless `singular`/`plural` say otherwise; all operations carry one tag, declared once in
 * the document's `tags` list.
 *
 * @example
 * modelRouter("/people", Person, { permissions, openApi: { plural: "Persons", tagDescription: "Everyone we know" } });
 * // operation ids: listPersons, createPerson, readPerson, updatePerson, deletePerson
 */
export interface ModelRouterOpenApiOptions {
  /** The operations' tag (default: the model name). */
  readonly tag?: string;
  /** The tag's description in the document's `tags` list (the first router declaring a tag sets it). */
  readonly tagDescription?: string;
  /** Description of the model's response schema. */
  readonly description?: string;
  /** Optional properties a `responseHandler` adds to each record, documented in the response schema. */
  readonly responseProperties?: Readonly<Record<string, SchemaObject>>;
  /** The one-record name in operation ids (default: the model name): `readPost`. */
  readonly singular?: string;
  /** The list name in operation ids (default: the plural of `singular`): `listPosts`. */
  readonly plural?: string;
}

/**
 * A router's request budgets: one per method, and `all` for its methods together. A rate is
 * `"<count>/<period>"` for every caller, or `{user, anonymous}` for each kind of caller.
 *
 * @example
 * const throttle: ModelThrottle = { all: "600/minute", create: { user: "30/minute", anonymous: "3/minute" } };
 */
export type ModelThrottle = { readonly [method in RestMethod | "all"]?: ThrottleRate };

/**
 * Options of `modelRouter`. Only `permissions` is required; every method without checks (or with
 * an empty list) is denied. `T` is the model's document type: written inline in
 * `modelRouter(path, Model, {...})` it comes from `Model`, so hooks and object checks are typed by
 * its fields; declared apart, give it (`mongoose.InferSchemaType<typeof schema>` or the interface
 * of `new Schema<T>()`).
 *
 * @example
 * const options: ModelRouterOptions<Todo> = {
 *   permissions: { list: [Permissions.IsAuthenticated], create: [Permissions.IsAuthenticated],
 *                  read: [Permissions.IsOwner], update: [Permissions.IsOwner], delete: [Permissions.IsOwner] },
 *   queryFilter: OwnerQueryFilter,
 *   queryFields: ["done", "dueOn"],
 *   sort: "-created",
 * };
 */
export interface ModelRouterOptions<T> {
  /** Checks per method; inline checks see `object` typed as the model's documents. */
  permissions: MethodPermissions<T>;
  /** The field naming a record's owner (default `ownerId`): set from `req.user` on create, never writable by clients. */
  ownerField?: string;
  /** The records a caller can reach (function or `OwnerQueryFilter`): ANDed into lists; a record outside it is 404 on read, update and delete. null → nothing. */
  queryFilter?: QueryFilter;
  /** Fields clients may filter lists on (`?done=true`, `?dueOn[$lt]=2024-06-01`). */
  queryFields?: readonly string[];
  /**
   * Text fields the list's `?search=` term is looked for in: case-insensitive, matched literally
   * (never compiled as a client pattern), a record matching in any of them. Unset: no `search`
   * parameter (a field named `search` stays an ordinary filter).
   */
  searchFields?: readonly string[];
  /** Default list order, e.g. `"-created,title"` or `{created: -1}` (default `-created` when the model has it, else `_id`). */
  sort?: string | Readonly<Record<string, 1 | -1>>;
  /** Page size when the client sends no `limit` (default 100). */
  defaultLimit?: number;
  /** Largest `limit` a client may ask for (default 500). */
  maxLimit?: number;
  /** Reference paths populated in every response, with the fields shown. */
  populatePaths?: readonly PopulatePath[];
  /** More top-level fields clients may not write (besides ids, timestamps, `deleted`, the owner field and `readOnly` schema fields). */
  readOnlyFields?: readonly string[];
  /**
   * Top-level fields only a caller with `admin: true` may write (others get 400
   * `VALIDATION_READ_ONLY_FIELD`). Default: on a user model (`baseUserPlugin`'s `email` and
   * `admin`), `MANAGED_USER_FIELDS`; otherwise none. `[]` lifts the rule for a router whose own
   * hooks decide who writes them, as the admin's do with its roles.
   */
  adminOnlyFields?: readonly string[];
  /**
   * Requests per period per caller — each signed-in user by id, each anonymous client by IP —
   * for one method (`create: "30/minute"`) or for the router's five together (`all`). A request
   * over any budget that applies is refused with 429 `HTTP_RATE_LIMITED` and `Retry-After`. The
   * budgets hold on every door to the model: REST, its MCP tools and sync mutations.
   */
  throttle?: ModelThrottle;
  /**
   * `Idempotency-Key` on creates: a POST sent again with the same key (a retry after a lost
   * answer, a double submit) gets the first answer again and creates nothing. On by default for
   * requests that carry the header; `{ required: true }` refuses creates without one, `false`
   * ignores the header. See `idempotent()` for the rules.
   */
  idempotency?: boolean | IdempotencyOptions;

  /** Returns the body to create; null/undefined → 403. */
  preCreate?: (body: RequestBody<T>, req: Request) => MaybePromise<RequestBody<T> | null | undefined>;
  postCreate?: (doc: HydratedDocument<T>, req: Request) => MaybePromise<unknown>;
  /** Returns the changes to apply; null/undefined → 403. */
  preUpdate?: (body: RequestBody<T>, req: Request, doc: HydratedDocument<T>) => MaybePromise<RequestBody<T> | null | undefined>;
  postUpdate?: (doc: HydratedDocument<T>, body: RequestBody<T>, req: Request, prevDoc: T) => MaybePromise<unknown>;
  /** Returns anything but null/undefined to allow the delete (null/undefined → 403). */
  preDelete?: (doc: HydratedDocument<T>, req: Request) => MaybePromise<unknown>;
  postDelete?: (doc: HydratedDocument<T>, req: Request) => MaybePromise<unknown>;
  /** Returns the filter to list with; null/undefined → 403. */
  preList?: (filter: QueryFilterObject, req: Request) => MaybePromise<QueryFilterObject | null | undefined>;
  /** Sees (and may replace) the shaped page of documents. */
  postList?: (docs: ResponseDocument[], req: Request) => MaybePromise<ResponseDocument[] | void>;

  /** Shapes each response document (per document, lists included). */
  responseHandler?: (doc: ResponseDocument, method: RestMethod, req: Request) => MaybePromise<unknown>;
  /** @deprecated Use `responseHandler`. */
  transformer?: LegacyTransformer<T>;
  /** @deprecated Use `responseHandler`. */
  responseSerializer?: (doc: ResponseDocument, method: RestMethod, req: Request) => MaybePromise<unknown>;

  validation?: ModelRouterValidationOptions;
  /** How the generated operations are documented (see `ModelRouterOpenApiOptions`). */
  openApi?: ModelRouterOpenApiOptions;

  /** Stored on the router for the MCP plugin. */
  mcp?: ModelMcpOptions;
  /** Stored on the router for the sync plugin. */
  sync?: ModelSyncOptions;
  /** Stored on the router for the admin plugin. */
  admin?: ModelAdminOptions;
}
