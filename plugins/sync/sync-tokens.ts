import { token } from "../../kernel/container.js";
import type { MutationService } from "./mutation-service.js";

/**
 * The started sync plugin's mutation path, for the realtime socket events (which must apply
 * mutations exactly as `POST /sync/mutate` does). Resolving it before start throws `SYNC_NOT_STARTED`.
 *
 * @example
 * const outcome = await ctx.resolve(SYNC_MUTATIONS).apply(socket.data.user, payload, requestLike);
 */
export const SYNC_MUTATIONS = token<MutationService>("sync.Mutations");
