import type { ModelSyncOptions } from "../../contracts/model-registry.js";
import type { MethodPermissions, RestMethod } from "../../contracts/model-permissions.js";

/** The `x-svc-sync` extension of a synced model's list operation (read by the sync client's codegen). */
export interface SyncOperationExtension {
  /** The name sync routes and mutations use (the model's collection). */
  readonly collection: string;
  readonly scope: "owner" | "tenant" | "broadcast" | "custom";
  /** The mutation operations the router permits to someone. */
  readonly operations: readonly ("create" | "update" | "delete")[];
}

/**
 * The extension a model router puts on its list operation when it has the `sync` option.
 *
 * @example
 * syncOperationExtension("todos", { scope: { type: "owner" } }, { create: [Permissions.IsAuthenticated] });
 * // { collection: "todos", scope: "owner", operations: ["create"] }
 */
export function syncOperationExtension(collection: string, sync: ModelSyncOptions, permissions: MethodPermissions<never>): SyncOperationExtension {
  const scope = typeof sync.scope === "function" ? "custom" : sync.scope.type;
  const writes: ("create" | "update" | "delete")[] = ["create", "update", "delete"];
  const allowed = (method: RestMethod) => ((permissions as Partial<Record<RestMethod, readonly unknown[]>>)[method]?.length ?? 0) > 0;
  return { collection, scope, operations: writes.filter(allowed) };
}
