import type { Model } from "mongoose";
import type { ModelRegistration, ModelSyncOptions } from "../../contracts/model-registry.js";
import type { RequestUser } from "../../contracts/request-user.js";
import { usesSoftDelete } from "../rest/index.js";
import { SyncErrors } from "./errors.js";
import { sameScope, streamRule, type StreamRule } from "./stream-key.js";
import { compiledWithSyncPlugin } from "./sync-schema-plugin.js";

/**
 * Which tenant and custom scopes a user belongs to: the part of a stream key after `|`
 * (`tenant:acme` for a tenant scope, whatever a custom scope function returns).
 */
export type GetUserScopes = (user: RequestUser) => readonly string[] | Promise<readonly string[]>;

/** One synced collection of the app, resolved at start from the model registry. */
export interface SyncedCollection {
  /** The name clients use: the model's MongoDB collection (e.g. `todos`). */
  readonly name: string;
  readonly registration: ModelRegistration;
  readonly model: Model<Record<string, unknown>>;
  readonly sync: ModelSyncOptions;
  readonly rule: StreamRule;
}

/**
 * The synced collections among the registered models, checked as SPEC §2.8 requires: a string
 * `_id`, `isDeletedPlugin`, `syncPlugin` applied before the model compiled, a `snapshotFilter`
 * for custom scopes and `getUserScopes` for tenant and custom ones, scope fields in the schema,
 * and one scope per model. Each failure throws its coded start-up error naming the model.
 *
 * @example
 * const collections = syncedCollections(ctx.resolve(MODEL_REGISTRY).list(), options.getUserScopes);
 */
export function syncedCollections(registrations: readonly ModelRegistration[], getUserScopes: GetUserScopes | undefined): Map<string, SyncedCollection> {
  const collections = new Map<string, SyncedCollection>();
  for (const registration of registrations) {
    const sync = registration.sync;
    if (!sync) continue;
    const model = registration.model.db.model(registration.modelName) as unknown as Model<Record<string, unknown>>;
    const modelName = registration.modelName;
    const name = model.collection.collectionName;
    const existing = collections.get(name);
    if (existing) {
      if (!sameScope(existing.sync.scope, sync.scope)) throw SyncErrors.SCOPE_CONFLICT(modelName);
      continue;
    }
    if (model.schema.path("_id")?.instance !== "String") throw SyncErrors.ID_NOT_STRING(modelName);
    if (!usesSoftDelete(model.schema)) throw SyncErrors.SOFT_DELETE_MISSING(modelName);
    if (!compiledWithSyncPlugin(model)) throw SyncErrors.PLUGIN_MISSING(modelName);
    const scope = sync.scope;
    if (typeof scope === "function" && !sync.snapshotFilter) throw SyncErrors.SNAPSHOT_FILTER_MISSING(modelName);
    if ((typeof scope === "function" || scope.type === "tenant") && !getUserScopes) throw SyncErrors.USER_SCOPES_MISSING(modelName);
    const rule = streamRule(name, scope, registration.ownerField);
    if (rule.field !== undefined && model.schema.path(rule.field) === undefined) throw SyncErrors.SCOPE_FIELD_UNKNOWN(modelName, rule.field);
    collections.set(name, { name, registration, model, sync, rule });
  }
  return collections;
}
