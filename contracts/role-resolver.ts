import { token } from "../kernel/container.js";
import type { RequestUser } from "./request-user.js";

/** A named set of permissions, as the admin's Roles tool lists them. */
export interface RoleDefinition {
  readonly name: string;
  readonly permissions: readonly string[];
  readonly description?: string;
}

/**
 * Where a user's permissions come from (the admin's role-based access, SPEC §2.6). Permissions
 * are strings: `admin:access`, `<resource>:read|write|writeOwned` (resources are
 * `admin<ModelName>` unless a model names its own), `admin:runScripts`,
 * `admin:viewBackgroundTasks`, `rbac:read`, `configuration:read`; `*` grants everything and
 * `<resource>:*` every action on one resource. The default adapter reads a `roles` collection
 * (`{name, permissions[]}`) and the user's `roles[]`; bind your own to take them from elsewhere
 * (an identity provider's groups, a claims field).
 *
 * @example
 * app.register({
 *   name: "my-roles",
 *   register(ctx) {
 *     ctx.container.bind(ROLE_RESOLVER, { useValue: {
 *       permissionsFor: async (user) => new Set(user.email?.endsWith("@support.example") ? ["admin:access", "adminTodo:read"] : []),
 *       listRoles: async () => [],
 *     } });
 *   },
 * });
 */
export interface RoleResolver {
  /** Every permission `user` holds (resolved once per admin request). */
  permissionsFor(user: RequestUser): Promise<ReadonlySet<string>>;
  /** The roles there are, for the Roles tool. */
  listRoles(): Promise<readonly RoleDefinition[]>;
}

export const ROLE_RESOLVER = token<RoleResolver>("admin.RoleResolver");
