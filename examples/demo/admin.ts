// The demo's admin: Todo and User under /admin with role-based access, two roles (a full admin
// and support: read everything, change only what they own), and one script.
import type { SvcPlugin } from "../../index.js";
import { adminOwnedBy, adminPlugin, roleModel, type RoleDefinition } from "../../plugins/admin/index.js";
import { Todo } from "./todo.js";
import { User } from "./user.js";

/** The demo's roles; give a user one by listing it in their `roles`. */
export const DEMO_ROLES: readonly RoleDefinition[] = [
  {
    name: "admin",
    description: "Everything the admin offers",
    permissions: [
      "admin:access",
      "adminTodo:read", "adminTodo:write",
      "adminUser:read", "adminUser:write",
      "adminFeatureFlag:read", "adminFeatureFlag:write",
      "adminAuditLog:read",
      "admin:runScripts", "admin:viewBackgroundTasks", "rbac:read", "configuration:read",
    ],
  },
  {
    name: "support",
    description: "Reads everything; creates records and changes or deletes only their own",
    permissions: ["admin:access", "adminTodo:read", "adminTodo:writeOwned", "adminUser:read", "adminUser:writeOwned"],
  },
];

/** The admin plugin of the demo (a new instance per app). */
export function demoAdmin(): SvcPlugin {
  return adminPlugin({
    models: [
      { model: Todo, routePath: "/todos", displayName: "Todos", listFields: ["title", "done", "priority", "dueOn", "tags", "created"] },
      // Support may edit their own user record (never its admin flag or roles).
      { model: User, routePath: "/users", displayName: "Users", listFields: ["email", "name", "admin", "roles", "created"], adminAccess: { ownedBy: adminOwnedBy("_id") } },
    ],
    accessControl: {},
    scripts: {
      "count-todos": {
        description: "Counts open and done todos",
        run: async ({ log }) => {
          log(`open: ${await Todo.countDocuments({ done: false })}`);
          log(`done: ${await Todo.countDocuments({ done: true })}`);
        },
      },
    },
  });
}

/** Creates (or updates) the demo's roles on start. */
export const seedRoles: SvcPlugin = {
  name: "demo-admin-roles",
  dependsOn: ["database"],
  async start() {
    const Role = roleModel();
    for (const role of DEMO_ROLES) {
      await Role.updateOne({ name: role.name }, { $set: { permissions: [...role.permissions], description: role.description } }, { upsert: true });
    }
  },
};
