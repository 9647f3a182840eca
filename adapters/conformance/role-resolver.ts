import type { ConformanceTest } from "./conformance-test.js";
import type { RequestUser } from "../../contracts/request-user.js";
import type { RoleDefinition, RoleResolver } from "../../contracts/role-resolver.js";

/**
 * The shared suite every `ROLE_RESOLVER` adapter passes. `create(roles)` returns an adapter that
 * knows exactly these roles (stored however the adapter stores them).
 *
 * @example
 * roleResolverConformance(test, "in-memory", async (roles) => inMemoryRoleResolver(roles));
 */
export function roleResolverConformance(test: ConformanceTest, name: string, create: (roles: readonly RoleDefinition[]) => Promise<RoleResolver>): void {
  const unique = (label: string) => `${label}-${name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const user = (roles: unknown): RequestUser => ({ id: "65f000000000000000000001", _id: "65f000000000000000000001", roles });

  test(`${name}: a user holds the union of their roles' permissions`, async (t) => {
    const [a, b, c] = [unique("a"), unique("b"), unique("c")];
    const resolver = await create([
      { name: a, permissions: ["admin:access", "adminTodo:read"] },
      { name: b, permissions: ["adminTodo:writeOwned"] },
      { name: c, permissions: ["rbac:read"] },
    ]);
    t.deepEqual([...(await resolver.permissionsFor(user([a, b])))].sort(), ["admin:access", "adminTodo:read", "adminTodo:writeOwned"]);
  });

  test(`${name}: no roles, unknown roles and roles that are not names grant nothing`, async (t) => {
    const known = unique("known");
    const resolver = await create([{ name: known, permissions: ["admin:access"] }]);
    t.is((await resolver.permissionsFor(user(undefined))).size, 0);
    t.is((await resolver.permissionsFor(user([]))).size, 0);
    t.is((await resolver.permissionsFor(user([unique("missing")]))).size, 0);
    t.is((await resolver.permissionsFor(user({ $ne: null }))).size, 0);
    t.is((await resolver.permissionsFor(user([{ $ne: null }, 42]))).size, 0);
  });

  test(`${name}: listRoles lists every role with its permissions`, async (t) => {
    const role = unique("listed");
    const resolver = await create([{ name: role, permissions: ["configuration:read"] }]);
    const listed = (await resolver.listRoles()).find((entry) => entry.name === role);
    t.deepEqual(listed && { name: listed.name, permissions: [...listed.permissions] }, { name: role, permissions: ["configuration:read"] });
  });
}
