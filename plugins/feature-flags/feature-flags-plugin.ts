import { NOOP_PROVIDER, OpenFeature } from "@openfeature/server-sdk";
import { AUTHENTICATOR } from "../../contracts/authenticator.js";
import { HTTP_ROUTER } from "../../contracts/http.js";
import type { RequestUser } from "../../contracts/request-user.js";
import { SOCKET_SERVER } from "../../contracts/socket-server.js";
import type { PluginContext, SvcPlugin } from "../../kernel/plugin.js";
import { startedService } from "../../kernel/started-service.js";
import type { MethodPermissions } from "../rest/index.js";
import { DbFeatureFlagProvider } from "./db-feature-flag-provider.js";
import { FeatureFlagErrors } from "./errors.js";
import { featureFlagModel } from "./feature-flag-model.js";
import { readFeatureFlagsEnvironment } from "./feature-flags-environment.js";
import { FLAG_CACHE, FlagCache } from "./flag-cache.js";
import { flagCrudRouter } from "./flag-crud-router.js";
import { documentFlagRoutes, mountFlagRoutes } from "./flag-routes.js";
import type { Segment } from "./flag-types.js";
import { attachLiveUpdates, type LiveUpdates, type LiveUpdatesOptions } from "./live-updates.js";
import { warnSegmentProblemsOnce } from "./segment-warnings.js";

export interface FeatureFlagsOptions {
  /** Where the routes live (default `/feature-flags`). */
  basePath?: string;
  /** Named user predicates that segment rules refer to. */
  segments?: Readonly<Record<string, Segment>>;
  /**
   * Permissions of the flag CRUD routes (default: admins only, for every method). Replaces the
   * default as a whole: a method left out is denied to everyone, admins included.
   */
  permissions?: MethodPermissions;
  /** Lets non-admins list segment names. */
  segmentsPermission?: (user: RequestUser) => boolean | Promise<boolean>;
  /**
   * The `Sunset` date the deprecated `GET {basePath}/evaluate` announces. Default: about 90 days
   * after the app started, which moves with every restart: set the date you mean to remove it.
   */
  evaluateSunset?: Date;
  /**
   * Push `{key}` to signed-in socket.io clients of the app's socket server (`SOCKET_SERVER`) when
   * a flag changes: `true`, or `{eventName}`. Needs the auth plugin (and, for immediacy, a
   * replica set).
   */
  liveUpdates?: boolean | LiveUpdatesOptions;
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

/**
 * The feature-flag plugin: admin CRUD for flags (a model router; DELETE soft-deletes), segment
 * names, the per-user flag configuration, the deprecated evaluation map, an OpenFeature provider
 * under `openFeatureDomain`, and optional live updates over the app's socket server. Evaluation
 * reads an in-memory cache kept fresh by the flags' change stream, so it never queries per
 * request; once started, the cache is `FLAG_CACHE`.
 *
 * @example
 * new SvcApp()
 *   .register(authPlugin({ userModel: User }))
 *   .register(featureFlagsPlugin({ segments: { staff: (user) => user.admin === true }, liveUpdates: true }));
 * // elsewhere:
 * const flags = OpenFeature.getClient("feature-flags");
 * await flags.getBooleanValue("new-checkout", false, { targetingKey: user.id });
 */
export function featureFlagsPlugin(options: FeatureFlagsOptions = {}): SvcPlugin {
  const basePath = options.basePath ?? "/feature-flags";
  if (!/^\/\S*[^/]$/.test(basePath)) throw FeatureFlagErrors.INVALID_BASE_PATH(basePath);
  const domain = options.openFeatureDomain ?? "feature-flags";
  const segments = options.segments ?? {};
  const liveUpdates = options.liveUpdates === true ? {} : options.liveUpdates || undefined;
  const model = featureFlagModel();
  const crud = flagCrudRouter(basePath, model, options.permissions);

  let cache: FlagCache | undefined;
  let provider: DbFeatureFlagProvider | undefined;
  let live: LiveUpdates | undefined;
  // Keys signed-in clients may know: flags active at some time (flagConfiguration listed them;
  // the flag stores when, `publishedAt`, so any process knows). A flag never active — a draft,
  // an archived one — is admin business, so its changes are not broadcast; once active, its later
  // changes are (clients must drop it). The set remembers deleted ones this process saw.
  const published = new Set<string>();
  const publishable = (flags: FlagCache, key: string): boolean => {
    if (flags.get(key)?.published === true) published.add(key);
    return published.has(key);
  };

  return {
    name: "feature-flags",
    dependsOn: ["database"],
    register(ctx: PluginContext) {
      ctx.container.bind(FLAG_CACHE, startedService(() => cache, FeatureFlagErrors.NOT_STARTED));
      crud.register?.(ctx);
    },
    async start(ctx: PluginContext) {
      const logger = ctx.logger;
      const debug = readFeatureFlagsEnvironment(ctx.config.env).debug;
      if (liveUpdates && !ctx.container.tryResolve(AUTHENTICATOR)) throw FeatureFlagErrors.LIVE_UPDATES_NEED_AUTH();
      await model.init();
      await crud.start?.(ctx);

      const started = new FlagCache({
        model,
        segments,
        logger,
        pollIntervalMs: options.pollIntervalMs,
        forcePolling: options.changeDetection === "poll",
        onSegmentProblem: warnSegmentProblemsOnce(logger),
        onChange: (keys) => {
          provider?.emitConfigurationChanged(keys);
          live?.notify(keys.filter((key) => publishable(started, key)));
        },
      });
      await started.start();
      for (const flag of started.flags()) if (flag.published) published.add(flag.key);
      cache = started;

      provider = new DbFeatureFlagProvider(started, {
        // Decisions only: never the user's field values (they may be personal data).
        onEvaluation: debug
          ? (flagKey, result) => logger.debug("Feature flag evaluated", { flagKey, value: result.value, reason: result.reason, variant: result.variant })
          : undefined,
      });
      await OpenFeature.setProviderAndWait(domain, provider);

      if (liveUpdates) live = attachLiveUpdates(ctx.resolve(SOCKET_SERVER), liveUpdates);

      mountFlagRoutes(ctx.resolve(HTTP_ROUTER), { basePath, cache: started, segmentNames: Object.keys(segments), segmentsPermission: options.segmentsPermission, sunset: options.evaluateSunset });
      documentFlagRoutes(ctx.openapi, basePath);
    },
    async stop(ctx: PluginContext) {
      live?.detach();
      live = undefined;
      // Another app in this process may have registered its own provider under the domain since
      // (both on one database): stopping this one must not switch that one off.
      if (provider && OpenFeature.getProvider(domain) === provider) await OpenFeature.setProviderAndWait(domain, NOOP_PROVIDER);
      provider = undefined;
      const stopping = cache;
      cache = undefined;
      await stopping?.stop();
      await crud.stop?.(ctx);
    },
  };
}
