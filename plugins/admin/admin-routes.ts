import type { Request, RequestHandler, Router } from "express";
import type { RoleResolver } from "../../contracts/role-resolver.js";
import { requireUser } from "../../contracts/request-user.js";
import type { SvcConfig } from "../../kernel/config.js";
import { TOOL_PERMISSIONS } from "./admin-access.js";
import type { AdminConfig } from "./admin-api-shapes.js";
import type { AdminPermissions } from "./admin-permissions.js";
import { configurationView } from "./configuration-view.js";
import type { ScriptTask, ScriptTasks } from "./script-tasks.js";
import { versionInfo } from "./version-info.js";

/** The admin's own routes, below its base path (models may not use these). */
export const ADMIN_OWN_ROUTES = ["/config", "/scripts", "/tasks", "/roles", "/version", "/configuration", "/ui"] as const;

/** What the admin's own routes work with. */
export interface AdminRoutesContext {
  readonly basePath: string;
  readonly permissions: AdminPermissions;
  readonly describe: (user: NonNullable<Request["user"]>) => Promise<AdminConfig>;
  readonly tasks: ScriptTasks;
  readonly roles: RoleResolver;
  readonly config: SvcConfig;
  readonly appVersion: { readonly name?: string; readonly version?: string };
  readonly configurationKeys: readonly string[];
}

/** A task as the routes show it: dates as ISO strings. */
function taskJson(task: ScriptTask) {
  return { ...task, log: [...task.log], started: task.started.toISOString(), finished: task.finished?.toISOString() };
}

/**
 * Mounts `GET {basePath}/config` (the caller's admin configuration; 403 without `admin:access`)
 * and the platform tools: scripts (`GET /scripts`, `POST /scripts/:name/run` → 202 with the
 * task), background tasks (`GET /tasks`, `GET /tasks/:id` with status and log), roles
 * (`GET /roles`), version (`GET /version`) and configuration (`GET /configuration`, secrets
 * redacted), each behind its permission.
 *
 * @example
 * mountAdminRoutes(ctx.resolve(HTTP_ROUTER), { basePath: "/admin", permissions, describe, tasks, roles, config: ctx.config, appVersion: {}, configurationKeys: [] });
 */
export function mountAdminRoutes(http: Router, context: AdminRoutesContext): void {
  const { basePath } = context;
  const needs = (...permissions: string[]): RequestHandler => context.permissions.require(...permissions);
  const tasksPermissions = [TOOL_PERMISSIONS.viewBackgroundTasks, TOOL_PERMISSIONS.runScripts];

  http.get(`${basePath}/config`, needs(TOOL_PERMISSIONS.access), async (req, res) => {
    res.json({ data: await context.describe(requireUser(req)) });
  });
  http.get(`${basePath}/scripts`, needs(...tasksPermissions), (_req, res) => {
    res.json({ data: context.tasks.list() });
  });
  http.post(`${basePath}/scripts/:name/run`, needs(TOOL_PERMISSIONS.runScripts), (req, res) => {
    const task = context.tasks.run(req.params.name as string, requireUser(req));
    res.status(202).location(`${req.baseUrl}${basePath}/tasks/${task.id}`).json({ data: taskJson(task) });
  });
  http.get(`${basePath}/tasks`, needs(...tasksPermissions), (_req, res) => {
    res.json({ data: context.tasks.listTasks().map(taskJson) });
  });
  http.get(`${basePath}/tasks/:id`, needs(...tasksPermissions), (req, res) => {
    res.json({ data: taskJson(context.tasks.get(req.params.id as string)) });
  });
  http.get(`${basePath}/roles`, needs(TOOL_PERMISSIONS.roles), async (_req, res) => {
    res.json({ data: await context.roles.listRoles() });
  });
  http.get(`${basePath}/version`, needs(TOOL_PERMISSIONS.configuration), (_req, res) => {
    res.json({ data: versionInfo(context.appVersion) });
  });
  http.get(`${basePath}/configuration`, needs(TOOL_PERMISSIONS.configuration), (_req, res) => {
    res.json({ data: configurationView(context.config, context.configurationKeys) });
  });
}
