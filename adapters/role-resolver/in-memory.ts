import type { RequestUser } from "../../contracts/request-user.js";
import type { RoleDefinition, RoleResolver } from "../../contracts/role-resolver.js";

/**
 * A `ROLE_RESOLVER` adapter over a fixed list of roles, for tests and for apps whose roles live
 * in code: a user holds the permissions of every role named in their `roles[]`.
 *
 * @example
 * const resolver = inMemoryRoleResolver([{ name: "support", permissions: ["admin:access", "adminTodo:read"] }]);
 */
export function inMemoryRoleResolver(roles: readonly RoleDefinition[]): RoleResolver {
  const byName = new Map(roles.map((role) => [role.name, role]));
  return {
    async permissionsFor(user: RequestUser) {
      const names = Array.isArray(user.roles) ? user.roles : [];
      const granted = new Set<string>();
      for (const name of names) {
        const role = typeof name === "string" ? byName.get(name) : undefined;
        for (const permission of role?.permissions ?? []) granted.add(permission);
      }
      return granted;
    },
    async listRoles() {
      return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
    },
  };
}
