import type { Request } from "express";
import type { Connection, Schema } from "mongoose";
import type { ParameterObject, SchemaObject } from "openapi3-ts/oas31";
import { token } from "../kernel/container.js";
import type { ModelAdminOptions } from "./admin-model-config.js";
import type { MethodPermissions, RestMethod } from "./model-permissions.js";
import type { RequestUser } from "./request-user.js";

/** What the MCP plugin exposes of a model (`modelRouter(..., { mcp })`). */
export interface ModelMcpOptions {
  /** Fields never shown to or accepted from MCP clients. */
  readonly excludeFields?: readonly string[];
  /** Which operations become MCP tools (default: all five). */
  readonly methods?: readonly RestMethod[];
}

/** How the sync plugin streams a model (SPEC §2.8): to its owner, a tenant, everyone, or a computed stream. */
export type SyncScope =
  | { readonly type: "owner"; readonly field?: string }
  | { readonly type: "tenant"; readonly field: string }
  | { readonly type: "broadcast" }
  | ((doc: Readonly<Record<string, unknown>>) => string);

/** `modelRouter(..., { sync })`. */
export interface ModelSyncOptions {
  readonly scope: SyncScope;
  /** Restricts the snapshot endpoint; derived automatically for owner and tenant scopes. */
  readonly snapshotFilter?: (user: RequestUser) => Record<string, unknown> | Promise<Record<string, unknown>>;
}

// How the admin plugin shows a model (`modelRouter(..., { admin })`): the one admin model-config type.
export type { ModelAdminOptions };

/** The names of a model router's hooks. */
export type ModelHookName =
  | "preCreate"
  | "postCreate"
  | "preUpdate"
  | "postUpdate"
  | "preDelete"
  | "postDelete"
  | "preList"
  | "postList"
  | "responseHandler";

/** What one generated operation answered: the status and body REST sends (`createdId` gives create's `Location`). */
export interface ModelOperationResult {
  readonly status: number;
  readonly body?: unknown;
  readonly createdId?: string;
  /** The record's revision after the operation, on models that keep one (REST sends it in the `ETag`). */
  readonly revision?: number;
}

/**
 * One of a router's five operations, run for a request — as its `user`, with its `params.id`,
 * `query` and `body` — through the router's permissions, query filter, hooks, validation and
 * response shaping. Refusals are thrown: the same errors the REST route answers with.
 */
export type ModelOperation = (req: Request) => Promise<ModelOperationResult>;

/** A router's five operations by method. */
export type ModelOperations = Readonly<Record<RestMethod, ModelOperation>>;

/** A started router: its operations and the JSON schemas its routes check and answer with. */
export interface ServedModel {
  readonly operations: ModelOperations;
  readonly schemas: { readonly create: SchemaObject; readonly update: SchemaObject; readonly response: SchemaObject };
  /** The list route's query parameters as `/openapi.json` documents them (limit, page, sort, search, one per filter field). */
  readonly listParameters: readonly ParameterObject[];
  /** The fields the list's `search` parameter looks in (empty: no `search`). */
  readonly searchFields: readonly string[];
  /**
   * The router's `throttle`: spends one request of the caller's budgets for `method`, rejecting
   * with 429 `HTTP_RATE_LIMITED` (`meta.retryAfterSeconds`) when one is spent. The operations
   * spend it themselves; other writers of the model (sync) call it. Absent when unthrottled.
   */
  readonly throttle?: (method: RestMethod, caller: { readonly user?: { readonly id: string }; readonly ip?: string }) => Promise<void>;
}

/**
 * One model served by the app: what its router was given, for the plugins that offer the same
 * model another way (admin, MCP, sync) and must apply the same permissions and hooks.
 */
export interface ModelRegistration {
  /** The router plugin's name, e.g. `model:todos`. */
  readonly name: string;
  /** Where the REST routes are mounted, e.g. `/todos`. */
  readonly path: string;
  readonly modelName: string;
  /**
   * The mongoose model (typed structurally: get the full model with
   * `registration.model.db.model(registration.modelName)`).
   */
  readonly model: { readonly modelName: string; readonly schema: Schema; readonly db: Connection };
  /** The field naming a record's owner (default `ownerId`). */
  readonly ownerField: string;
  readonly permissions: Readonly<MethodPermissions>;
  /** The hooks the router runs, by name (call them with the router's documented arguments). */
  readonly hooks: Readonly<Partial<Record<ModelHookName, (...args: never[]) => unknown>>>;
  readonly mcp?: ModelMcpOptions;
  readonly sync?: ModelSyncOptions;
  readonly admin?: ModelAdminOptions;
  /**
   * The router's operations and schemas once it has started (undefined before), for plugins
   * that serve the same model another way and must refuse what REST refuses (MCP's model tools).
   */
  readonly served?: () => ServedModel | undefined;
}

/**
 * The models of one app, filled by every `modelRouter` during `register()` (so it is complete
 * before any plugin starts). Bound by the host per app; admin, MCP and sync read it.
 *
 * @example
 * start(ctx) {
 *   for (const entry of ctx.resolve(MODEL_REGISTRY).list()) if (entry.admin) addAdminPage(entry);
 * }
 */
export interface ModelRegistry {
  /** Adds a router's model (router names follow their paths, so two routers never share one). */
  add(registration: ModelRegistration): void;
  /** Every registration, in registration order. */
  list(): readonly ModelRegistration[];
  /** The registrations of one model (a model may be served at several paths). */
  byModel(modelName: string): readonly ModelRegistration[];
}

export const MODEL_REGISTRY = token<ModelRegistry>("rest.ModelRegistry");
