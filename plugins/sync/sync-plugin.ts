import { HTTP_ROUTER } from "../../contracts/http.js";
import { MODEL_REGISTRY } from "../../contracts/model-registry.js";
import type { PluginContext, SvcPlugin } from "../../kernel/plugin.js";
import { SyncErrors } from "./errors.js";
import { StreamMembership } from "./membership.js";
import { MutationService } from "./mutation-service.js";
import { documentSyncRoutes } from "./openapi.js";
import { initSyncBookkeeping } from "./sync-bookkeeping.js";
import { bindSyncedModel } from "./synced-model-binding.js";
import { syncedCollections, type GetUserScopes } from "./synced-collections.js";
import { mountSyncRoutes } from "./sync-routes.js";
import { SYNC_MUTATIONS, SYNC_SERVICES, type SyncServices } from "./sync-tokens.js";
import { startedService } from "../../kernel/started-service.js";

export interface SyncAppOptions {
  /** Where the routes live (default `/sync`). */
  basePath?: string;
  /**
   * The tenant and custom scopes a user belongs to (the part of a stream key after `|`:
   * `tenant:acme`, or what a custom scope function returns). Required when a model has a tenant
   * or custom scope.
   */
  getUserScopes?: GetUserScopes;
}

/**
 * The sync plugin (`SyncApp` of SPEC §4.6): serves every model whose router has a `sync` option
 * over `/sync/*` (snapshot, streams, entities, key, mutate, mutate/batch), for signed-in users,
 * with per-stream seqs stamped by `syncPlugin`. Checks the synced models at start (string
 * `_id`, `isDeletedPlugin`, `syncPlugin` applied before compile) and fails with a coded error
 * naming the model and the rule. Once started, `SYNC_MUTATIONS` is the one mutation path.
 *
 * @example
 * new SvcApp()
 *   .register(authPlugin({ userModel: User }))
 *   .register(modelRouter("/todos", Todo, { permissions: { list: [Permissions.IsOwner], create: [Permissions.IsAuthenticated], update: [Permissions.IsOwner], delete: [Permissions.IsOwner] }, queryFilter: OwnerQueryFilter, sync: { scope: { type: "owner" } } }))
 *   .register(syncApp({ getUserScopes: async (user) => [`tenant:${String(user.orgId)}`] }));
 */
export function syncApp(options: SyncAppOptions = {}): SvcPlugin {
  const basePath = options.basePath ?? "/sync";
  let services: SyncServices | undefined;
  let releases: (() => void)[] = [];

  return {
    name: "sync",
    dependsOn: ["database"],
    register(ctx: PluginContext) {
      ctx.container.bind(SYNC_MUTATIONS, startedService(() => services?.mutations, SyncErrors.NOT_STARTED));
      ctx.container.bind(SYNC_SERVICES, startedService(() => services, SyncErrors.NOT_STARTED));
    },
    async start(ctx: PluginContext) {
      const collections = syncedCollections(ctx.resolve(MODEL_REGISTRY).list(), options.getUserScopes);
      for (const collection of collections.values()) {
        releases.push(bindSyncedModel(collection.model, { collection: collection.name, scope: collection.sync.scope, rule: collection.rule }));
        await collection.model.init();
      }
      const first = [...collections.values()][0];
      if (!first) ctx.logger.warn("The sync plugin serves no collection: give a modelRouter the sync option");
      const connection = first?.model.db;
      if (!connection) return;
      const bookkeeping = await initSyncBookkeeping(connection);
      const membership = new StreamMembership(options.getUserScopes);
      const mutations = new MutationService({ collections, membership, bookkeeping, logger: ctx.logger });
      services = { collections, membership, mutations, bookkeeping };
      mountSyncRoutes(ctx.resolve(HTTP_ROUTER), { basePath, ...services });
      documentSyncRoutes(ctx.openapi, basePath);
    },
    async stop() {
      for (const release of releases) release();
      releases = [];
      services = undefined;
    },
  };
}
