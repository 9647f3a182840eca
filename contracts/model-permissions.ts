import type { RequestUser } from "./request-user.js";

/** The five operations of a model router (and of the admin, MCP and sync views of a model). */
export type RestMethod = "list" | "create" | "read" | "update" | "delete";

/** What a permission check is told about the object it guards. */
export interface PermissionContext {
  /** The router's owner field (default `ownerId`). */
  readonly ownerField: string;
}

/**
 * A loaded document as an object check sees it: the model's fields and its `_id`. Read may hand
 * over a plain (lean) record and update and delete the mongoose document, so only the fields are
 * promised, not document methods or virtuals.
 *
 * @example
 * const published = (object: PermissionObject<PostFields>) => object.published === true;
 */
export type PermissionObject<T = Record<string, unknown>> = Readonly<T> & { readonly _id: unknown };

/**
 * A permission check. Called once per request without `object` (may this user call this method
 * at all?) and, for read, update and delete, again with the loaded document (may they touch this
 * one?). Every check of a method must pass. Admin, MCP and sync apply a model's checks the same way.
 *
 * `T` is the model's document type: checks written inline in `modelRouter(path, Model, ...)` get
 * it from the model, so `object.publshed` is a type error there. A check typed without `T` sees a
 * record of unknown fields and fits every model, like the built-in `Permissions.*`.
 *
 * @example
 * const IsEditor: PermissionCheck = (_method, user) => user?.role === "editor";
 * const PublishedOrOwn: PermissionCheck<PostFields> = (_method, user, object) =>
 *   object === undefined || object.published === true || String(object.ownerId) === user?.id;
 */
export type PermissionCheck<T = Record<string, unknown>> = ((
  method: RestMethod,
  user: RequestUser | undefined,
  object: PermissionObject<T> | undefined,
  context: PermissionContext,
) => boolean | Promise<boolean>) & {
  /**
   * Whether the check can only pass for an authenticated user for this method (used to answer
   * 401 rather than 403, and to document security in OpenAPI). Unset means "unknown": denial
   * answers 401 for anonymous callers anyway.
   */
  readonly requiresAuthentication?: (method: RestMethod) => boolean;
};

/**
 * Permission checks per method; a missing or empty list denies that method to everyone.
 *
 * @example
 * const permissions: MethodPermissions<PostFields> = { list: [Permissions.IsAny], update: [Permissions.IsOwner] };
 */
export type MethodPermissions<T = Record<string, unknown>> = Partial<Record<RestMethod, readonly PermissionCheck<T>[]>>;
