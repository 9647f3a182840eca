import { token } from "../../kernel/container.js";
import type { StreamMembership } from "./membership.js";
import type { MutationService } from "./mutation-service.js";
import type { SyncBookkeeping } from "./sync-bookkeeping.js";
import type { SyncedCollection } from "./synced-collections.js";

/**
 * The started sync plugin's mutation path, for the realtime socket events (which must apply
 * mutations exactly as `POST /sync/mutate` does). Resolving it before start throws `SYNC_NOT_STARTED`.
 *
 * @example
 * const outcome = await ctx.resolve(SYNC_MUTATIONS).apply(socket.data.user, payload, requestLike);
 */
export const SYNC_MUTATIONS = token<MutationService>("sync.Mutations");

/** What the started sync plugin shares with its realtime half (the same collections, membership and mutation path). */
export interface SyncServices {
  readonly collections: ReadonlyMap<string, SyncedCollection>;
  readonly membership: StreamMembership;
  readonly mutations: MutationService;
  readonly bookkeeping: SyncBookkeeping;
}

/**
 * The started sync plugin's services (internal to `svc/sync`: `realtimeApp` resolves them in its
 * start). Resolving it before start throws `SYNC_NOT_STARTED`.
 *
 * @example
 * const { collections, membership, mutations } = ctx.resolve(SYNC_SERVICES);
 */
export const SYNC_SERVICES = token<SyncServices>("sync.Services");
