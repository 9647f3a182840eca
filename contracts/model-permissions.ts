import type { RequestUser } from "./request-user.js";

/** The five operations of a model router (and of the admin, MCP and sync views of a model). */
export type RestMethod = "list" | "create" | "read" | "update" | "delete";

/** What a permission check is told about the object it guards. */
export interface PermissionContext {
  /** The router's owner field (default `ownerId`). */
  readonly ownerField: string;
}

/**
 * A permission check. Called once per request without `object` (may this user call this method
 * at all?) and, for read, update and delete, again with the loaded document (may they touch this
 * one?). Every check of a method must pass. Admin, MCP and sync apply a model's checks the same way.
 *
 * @example
 * const IsEditor: PermissionCheck = (_method, user) => user?.role === "editor";
 */
export type PermissionCheck = ((
  method: RestMethod,
  user: RequestUser | undefined,
  object: Readonly<Record<string, unknown>> | undefined,
  context: PermissionContext,
) => boolean | Promise<boolean>) & {
  /**
   * Whether the check can only pass for an authenticated user for this method (used to answer
   * 401 rather than 403, and to document security in OpenAPI). Unset means "unknown": denial
   * answers 401 for anonymous callers anyway.
   */
  readonly requiresAuthentication?: (method: RestMethod) => boolean;
};

/** Permission checks per method; a missing or empty list denies that method to everyone. */
export type MethodPermissions = Partial<Record<RestMethod, readonly PermissionCheck[]>>;
