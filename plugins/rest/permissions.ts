import type { PermissionCheck, PermissionContext, PermissionObject, RestMethod } from "../../contracts/model-permissions.js";
import type { RequestUser } from "../../contracts/request-user.js";

export type { MethodPermissions, PermissionCheck, PermissionContext, PermissionObject, RestMethod } from "../../contracts/model-permissions.js";

/** Every method, in route order. */
export const REST_METHODS: readonly RestMethod[] = Object.freeze(["list", "create", "read", "update", "delete"]);

// The built-in checks read no field but `_id` and the router's owner field, so they are typed
// for documents of any model: `PermissionCheck<unknown>` fits every `PermissionCheck<T>`.
function check(
  fn: (method: RestMethod, user: RequestUser | undefined, object: PermissionObject<unknown> | undefined, context: PermissionContext) => boolean,
  requiresAuthentication: (method: RestMethod) => boolean,
): PermissionCheck<unknown> {
  return Object.assign(fn, { requiresAuthentication });
}

/** The owner field of `object` as a string (ObjectId or string ids compare alike). */
export function ownerIdOf(object: PermissionObject<unknown>, ownerField: string): string | undefined {
  // The owner field is named at run time (`ownerField`), so it is read as an unknown field.
  const value = (object as Readonly<Record<string, unknown>>)[ownerField];
  if (value === null || value === undefined) return undefined;
  // A populated owner is a document; compare its id.
  if (typeof value === "object" && "_id" in (value as object)) return String((value as { _id: unknown })._id);
  return String(value);
}

const isReadMethod = (method: RestMethod) => method === "list" || method === "read";

/**
 * The named permission checks.
 *
 * - `IsAny`: everyone, including anonymous callers.
 * - `IsAuthenticated`: any authenticated user.
 * - `IsAuthenticatedOrReadOnly`: anyone may list and read; writes need a user.
 * - `IsOwner`: an authenticated user; on a loaded document, its owner (the router's owner field
 *   equals the user's id) or an admin.
 * - `IsAdmin`: users with `admin: true`.
 *
 * @example
 * modelRouter("/todos", Todo, {
 *   permissions: {
 *     list: [Permissions.IsAuthenticated],
 *     create: [Permissions.IsAuthenticated],
 *     read: [Permissions.IsOwner],
 *     update: [Permissions.IsOwner],
 *     delete: [Permissions.IsAdmin],
 *   },
 * });
 */
export const Permissions = Object.freeze({
  IsAny: check(() => true, () => false),
  IsAuthenticated: check((_method, user) => user !== undefined, () => true),
  IsAuthenticatedOrReadOnly: check((method, user) => user !== undefined || isReadMethod(method), (method) => !isReadMethod(method)),
  IsOwner: check(
    (_method, user, object, context) => {
      if (!user) return false;
      if (!object) return true;
      if (user.admin === true) return true;
      return ownerIdOf(object, context.ownerField) === user.id;
    },
    () => true,
  ),
  IsAdmin: check((_method, user) => user?.admin === true, () => true),
});

/**
 * A document loaded from the database for a permission check. Its callers (the router, admin,
 * MCP, sync) read it as a plain record from the very model whose checks they run, so it is handed
 * to those checks as that model's document.
 */
type LoadedObject<T> = PermissionObject<T> | Readonly<Record<string, unknown>>;

/**
 * Runs every check of a method; true only when all pass (an empty list never passes). Stays
 * synchronous while the checks are, so the common case costs no extra promise. `object` must be
 * a document of the model the checks were written for.
 *
 * @example
 * await checkPermissions(options.permissions.read ?? [], "read", req.user, doc, { ownerField: "ownerId" });
 */
export function checkPermissions<T = Record<string, unknown>>(
  checks: readonly PermissionCheck<T>[],
  method: RestMethod,
  user: RequestUser | undefined,
  object: LoadedObject<T> | undefined,
  context: PermissionContext,
): boolean | Promise<boolean> {
  if (checks.length === 0) return false;
  const document = object as PermissionObject<T> | undefined;
  for (let index = 0; index < checks.length; index++) {
    const result = checks[index]!(method, user, document, context);
    if (result instanceof Promise) return finishAsync(result, checks, index, method, user, document, context);
    if (!result) return false;
  }
  return true;
}

async function finishAsync<T>(
  pending: Promise<boolean>,
  checks: readonly PermissionCheck<T>[],
  index: number,
  method: RestMethod,
  user: RequestUser | undefined,
  object: PermissionObject<T> | undefined,
  context: PermissionContext,
): Promise<boolean> {
  if (!(await pending)) return false;
  for (let next = index + 1; next < checks.length; next++) {
    if (!(await checks[next]!(method, user, object, context))) return false;
  }
  return true;
}

/** True when some check of the method can only pass for an authenticated user. */
export function requiresAuthentication<T>(checks: readonly PermissionCheck<T>[], method: RestMethod): boolean {
  return checks.some((entry) => entry.requiresAuthentication?.(method) === true);
}
