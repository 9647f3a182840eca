// The demo's admin: Todo and User under /admin with role-based access, two roles (a full admin
// and support: read everything, change only what they own), one script, and one custom screen
// of the web UI ("Todo stats", admin-screens/todo-stats.js, over the demo's GET /todo-stats).
import express from "express";
import { fileURLToPath } from "node:url";
import { HTTP_ROUTER, type SvcPlugin } from "../../index.js";
import { ADMIN_PERMISSIONS, adminOwnedBy, adminPlugin, roleModel, type RoleDefinition } from "../../plugins/admin/index.js";
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
      "todoStats:read",
    ],
  },
  {
    name: "support",
    description: "Reads everything; creates records and changes or deletes only their own",
    permissions: ["admin:access", "adminTodo:read", "adminTodo:writeOwned", "adminUser:read", "adminUser:writeOwned", "todoStats:read"],
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
    customScreens: [{ name: "todo-stats", displayName: "Todo stats", adminAccess: { resource: "todoStats", action: "read" } }],
    ui: { screenScripts: ["/admin-screens/todo-stats.js"] },
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

/**
 * The "Todo stats" screen's script (served as it is) and the route it reads, which checks the
 * caller with the admin's own permissions: the screen is only UI.
 */
export const todoStatsScreen: SvcPlugin = {
  name: "demo-todo-stats",
  dependsOn: ["admin"],
  start(ctx) {
    const http = ctx.resolve(HTTP_ROUTER);
    http.use("/admin-screens", express.static(fileURLToPath(new URL("./admin-screens/", import.meta.url)), { index: false }));
    http.get("/todo-stats", ctx.resolve(ADMIN_PERMISSIONS).require("todoStats:read"), async (_req, res) => {
      const today = new Date(new Date().toISOString().slice(0, 10));
      const [open, done, overdue] = await Promise.all([
        Todo.countDocuments({ done: false }),
        Todo.countDocuments({ done: true }),
        Todo.countDocuments({ done: false, dueOn: { $lt: today } }),
      ]);
      res.json({ data: { open, done, overdue, at: new Date().toISOString() } });
    });
  },
};
