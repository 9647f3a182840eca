/** What an admin user with `admin: true` holds: everything. */
export const ALL_PERMISSIONS: ReadonlySet<string> = Object.freeze(new Set(["*"]));

/**
 * True when `permissions` grants `wanted` (`resource:action`): exactly, through `resource:*`, or
 * through `*`.
 *
 * @example
 * grants(new Set(["adminTodo:*"]), "adminTodo:write"); // true
 * grants(new Set(["adminTodo:read"]), "adminTodo:write"); // false
 */
export function grants(permissions: ReadonlySet<string>, wanted: string): boolean {
  if (permissions.has("*") || permissions.has(wanted)) return true;
  const colon = wanted.lastIndexOf(":");
  return colon > 0 && permissions.has(`${wanted.slice(0, colon)}:*`);
}
