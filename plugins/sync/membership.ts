import type { RequestUser } from "../../contracts/request-user.js";
import { checkPermissions } from "../rest/index.js";
import type { GetUserScopes, SyncedCollection } from "./synced-collections.js";

/**
 * Which streams a user belongs to: owner streams by the user's id, broadcast for everyone, tenant
 * and custom ones through the app's `getUserScopes`, asked once per call site.
 *
 * @example
 * const membership = new StreamMembership(options.getUserScopes);
 * const streams = await membership.streamsOf(user, todos); // ["todos|owner:u1"]
 */
export class StreamMembership {
  constructor(private readonly getUserScopes: GetUserScopes | undefined) {}

  /** The user's tenant and custom scope keys (empty without `getUserScopes`). */
  async scopeKeys(user: RequestUser): Promise<readonly string[]> {
    if (!this.getUserScopes) return [];
    const keys = await this.getUserScopes(user);
    return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === "string" && key.length > 0) : [];
  }

  /**
   * Whether the collection's router lets the user list it (its `list` permissions, checked as
   * REST checks them before loading anything): syncing a collection is listing it.
   */
  async mayList(user: RequestUser, collection: SyncedCollection): Promise<boolean> {
    const { permissions, ownerField } = collection.registration;
    return checkPermissions(permissions.list ?? [], "list", user, undefined, { ownerField });
  }

  async streamsOf(user: RequestUser, collection: SyncedCollection, scopeKeys?: readonly string[]): Promise<string[]> {
    const needsKeys = collection.rule.kind === "tenant" || collection.rule.kind === "custom";
    return collection.rule.memberStreams(user, needsKeys ? (scopeKeys ?? (await this.scopeKeys(user))) : []);
  }
}
