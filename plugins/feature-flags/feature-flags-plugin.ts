import { NOOP_PROVIDER, OpenFeature } from "@openfeature/server-sdk";
import { AUTHENTICATOR } from "../../contracts/authenticator.js";
import { HTTP_ROUTER } from "../../contracts/http.js";
import type { RequestUser } from "../../contracts/request-user.js";
import { defineErrors } from "../../kernel/errors.js";
import type { PluginContext, SvcPlugin } from "../../kernel/plugin.js";
import { modelRouter } from "../rest/model-router.js";
import { Permissions, type MethodPermissions } from "../rest/permissions.js";
import { DbFeatureFlagProvider } from "./db-feature-flag-provider.js";
import { featureFlagModel } from "./feature-flag-model.js";
import { FlagCache } from "./flag-cache.js";
import { documentFlagRoutes, mountFlagRoutes } from "./flag-routes.js";
import type { Segment } from "./flag-types.js";
import { attachLiveUpdates, type LiveUpdatesOptions } from "./live-updates.js";

export const FeatureFlagErrors = defineErrors("FEATURE_FLAGS", {
  LIVE_UPDATES_NEED_AUTH: {
    message: () => "Feature-flag liveUpdates authenticate sockets through AUTHENTICATOR: register the auth plugin too",
  },
  INVALID_BASE_PATH: { message: (path: string) => `basePath must start with "/" and not end with one, got "${path}"` },
});

export interface FeatureFlagsOptions {
  /** Where the routes live (default `/feature-flags`). */
  basePath?: string;
  /** Named user predicates that segment rules refer to. */
  segments?: Readonly<Record<string, Segment>>;
  /** Permissions of the flag CRUD routes (default: admins only, for every method). */
  permissions?: MethodPermissions;
  /** Lets non-admins list segment names. */
  segmentsPermission?: (user: RequestUser) => boolean | Promise<boolean>;
  /** Push `{key}` to authenticated socket.io clients when a flag changes (needs a replica set). */
  liveUpdates?: LiveUpdatesOptions;
  /** The OpenFeature domain the provider is registered under (default `feature-flags`). */
  openFeatureDomain?: string;
  /**
   * Follow flag changes through the change stream (default) or by polling every
   * `pollIntervalMs` (default 5 s) — polling is also the automatic fallback on deployments
   * without change streams.
   */
  changeDetection?: "changeStream" | "poll";
  pollIntervalMs?: number;
}

/** The plugin, plus access to its live parts once started (undefined before start and after stop). */
export interface FeatureFlagsPlugin extends SvcPlugin {
  /** The OpenFeature provider registered under `openFeatureDomain`. */
  readonly provider: () => DbFeatureFlagProvider | undefined;
  /** The in-memory flag cache (e.g. `cache()?.get("new-checkout")?.evaluate(user, user.id)`). */
  readonly cache: () => FlagCache | undefined;
}

const ADMIN_ONLY: MethodPermissions = {
  list: [Permissions.IsAdmin],
  create: [Permissions.IsAdmin],
  read: [Permissions.IsAdmin],
  update: [Permissions.IsAdmin],
  delete: [Permissions.IsAdmin],
};

/** Deprecated routes announce a sunset about 90 days after the app started. */
const SUNSET_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * The feature-flag plugin: admin CRUD for flags (a model router; DELETE soft-deletes), segment
 * names, the per-user flag configuration, the deprecated evaluation map, an OpenFeature provider
 * under `openFeatureDomain`, and optional live updates over socket.io. Evaluation reads an
 * in-memory cache kept fresh by the flags' change stream, so it never queries per request.
 *
 * @example
 * new SvcApp()
 *   .register(authPlugin({ userModel: User }))
 *   .register(featureFlagsPlugin({ segments: { staff: (user) => user.admin === true } }));
 * // elsewhere:
 * const flags = OpenFeature.getClient("feature-flags");
 * await flags.getBooleanValue("new-checkout", false, { targetingKey: user.id });
 */
export function featureFlagsPlugin(options: FeatureFlagsOptions = {}): FeatureFlagsPlugin {
  const basePath = options.basePath ?? "/feature-flags";
  if (!/^\/\S*[^/]$/.test(basePath)) throw FeatureFlagErrors.INVALID_BASE_PATH(basePath);
  const domain = options.openFeatureDomain ?? "feature-flags";
  const segments = options.segments ?? {};
  const model = featureFlagModel();
  const crud = modelRouter(`${basePath}/flags`, model, {
    permissions: options.permissions ?? ADMIN_ONLY,
    queryFields: ["key", "type", "enabled", "archived"],
    sort: "-created",
  });

  let cache: FlagCache | undefined;
  let provider: DbFeatureFlagProvider | undefined;
  let live: ReturnType<typeof attachLiveUpdates> | undefined;

  return {
    name: "feature-flags",
    dependsOn: ["database"],
    provider: () => provider,
    cache: () => cache,
    register(ctx: PluginContext) {
      crud.register?.(ctx);
    },
    async start(ctx: PluginContext) {
      const logger = ctx.logger;
      const debug = ctx.config.featureFlagsDebug;
      await model.init();
      await crud.start?.(ctx);

      const warned = new Set<string>();
      cache = new FlagCache({
        model,
        segments,
        logger,
        pollIntervalMs: options.pollIntervalMs,
        forcePolling: options.changeDetection === "poll",
        onSegmentProblem: (flagKey, segment, error) => {
          // Once per flag and segment: a throwing segment would otherwise log on every request.
          const id = `${flagKey}/${segment}`;
          if (warned.has(id)) return;
          warned.add(id);
          logger.warn(`Feature flag "${flagKey}": segment "${segment}" ${error ? "threw" : "is not registered"}; the rule never matches`, {
            reason: error instanceof Error ? error.message : undefined,
          });
        },
        onChange: (keys) => {
          provider?.emitConfigurationChanged(keys);
          live?.notify(keys);
        },
      });
      await cache.start();

      provider = new DbFeatureFlagProvider(cache, {
        // Decisions only: never the user's field values (they may be personal data).
        onEvaluation: debug
          ? (flagKey, result) => logger.debug("Feature flag evaluated", { flagKey, value: result.value, reason: result.reason, variant: result.variant })
          : undefined,
      });
      await OpenFeature.setProviderAndWait(domain, provider);

      if (options.liveUpdates) {
        const authenticator = ctx.container.tryResolve(AUTHENTICATOR);
        if (!authenticator) throw FeatureFlagErrors.LIVE_UPDATES_NEED_AUTH();
        live = attachLiveUpdates(options.liveUpdates, authenticator, logger);
      }

      mountFlagRoutes(ctx.resolve(HTTP_ROUTER), {
        basePath,
        cache,
        segmentNames: Object.keys(segments),
        segmentsPermission: options.segmentsPermission,
        sunset: new Date(Date.now() + SUNSET_MS),
      });
      documentFlagRoutes(ctx.openapi, basePath);
    },
    async stop(ctx: PluginContext) {
      live?.detach();
      live = undefined;
      if (provider) await OpenFeature.setProviderAndWait(domain, NOOP_PROVIDER);
      provider = undefined;
      await cache?.stop();
      cache = undefined;
      await crud.stop?.(ctx);
    },
  };
}
