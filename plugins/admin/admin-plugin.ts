import type { SchemaObject } from "openapi3-ts/oas31";
import { ACCOUNTS } from "../../contracts/accounts.js";
import type { AdminModelConfig } from "../../contracts/admin-model-config.js";
import { HTTP_ROUTER } from "../../contracts/http.js";
import { MODEL_REGISTRY, type ModelRegistration } from "../../contracts/model-registry.js";
import { ROLE_RESOLVER, type RoleResolver } from "../../contracts/role-resolver.js";
import { rolesCollectionResolver } from "../../adapters/role-resolver/roles-collection.js";
import type { PluginContext, SvcPlugin } from "../../kernel/plugin.js";
import { startedService } from "../../kernel/started-service.js";
import { featureFlagAdminConfig } from "../feature-flags/index.js";
import { AdminAccessPolicy } from "./admin-access.js";
import { adminConfigFor } from "./admin-config.js";
import { adminEntry, type AdminEntry } from "./admin-entry.js";
import { adminModelRouter, type RecordDeleted } from "./admin-model-router.js";
import type { AdminOptions } from "./admin-options.js";
import { ADMIN_PERMISSIONS, adminPermissions, type AdminPermissions } from "./admin-permissions.js";
import { ADMIN_OWN_ROUTES, mountAdminRoutes } from "./admin-routes.js";
import { mountAdminUi } from "./admin-ui-route.js";
import { AuditLog, auditLogModel } from "./audit-log.js";
import { bulkSchemas, mountBulkRoutes } from "./bulk-routes.js";
import { AdminErrors } from "./errors.js";
import { documentAdmin } from "./openapi.js";
import { ScriptTasks } from "./script-tasks.js";
import { administersAccounts, mountUserAccountRoutes } from "./user-account-routes.js";

const BASE_PATH = /^\/[A-Za-z0-9/_.-]*[A-Za-z0-9_.-]$/;

/** The audit log as an admin model: read-only, readable with `adminAuditLog:read`. */
function auditLogConfig(): AdminModelConfig {
  return {
    model: auditLogModel(),
    routePath: "/audit-log",
    displayName: "Audit log",
    listFields: ["created", "action", "modelName", "recordId", "fields", "userEmail", "bulk"],
    defaultSort: "-created",
    adminAccess: { resource: "adminAuditLog" },
  };
}

/** Every model the admin shows: the options', the routers' with an `admin` option, the feature flags'. */
function adminConfigs(options: AdminOptions, registry: readonly ModelRegistration[]): { config: AdminModelConfig; registration?: ModelRegistration }[] {
  const configs: { config: AdminModelConfig; registration?: ModelRegistration }[] = [];
  const shown = new Set<string>();
  for (const config of options.models) {
    configs.push({ config, registration: registry.find((entry) => entry.modelName === config.model.modelName) });
    shown.add(config.model.modelName);
  }
  for (const registration of registry) {
    if (!registration.admin || shown.has(registration.modelName)) continue;
    const model = registration.model.db.model(registration.modelName) as unknown as AdminModelConfig["model"];
    configs.push({ config: { ...registration.admin, model, routePath: registration.path }, registration });
    shown.add(registration.modelName);
  }
  const flags = registry.find((entry) => entry.modelName === "FeatureFlag");
  if (flags && !shown.has("FeatureFlag")) configs.push({ config: featureFlagAdminConfig(), registration: flags });
  return configs;
}

/**
 * The admin plugin (SPEC §2.6, §4.4): for each model, admin CRUD at `{basePath}{routePath}` —
 * the REST plugin's own routes (validation, pagination, sorting, filters on the list fields,
 * `?search=` over text fields, soft delete), each record with `_adminCapabilities` — plus bulk
 * update and delete; `GET {basePath}/config` for the caller; the platform tools (scripts as
 * background tasks, roles, version, configuration with secrets redacted) and an audit log of
 * every admin write. Models come from `models`, from every `modelRouter` with an `admin`
 * option, and from the feature-flag plugin when it is registered. With `accessControl`, or a
 * `ROLE_RESOLVER` bound in the app, permissions come from `ROLE_RESOLVER` (default: the roles
 * collection); with neither, the admin is for `admin: true` users.
 *
 * @example
 * app.register(adminPlugin({
 *   models: [{ model: Todo, routePath: "/todos", displayName: "Todos", listFields: ["title", "done", "created"] }],
 *   accessControl: {},
 * }));
 */
export function adminPlugin(options: AdminOptions): SvcPlugin {
  const basePath = options.basePath ?? "/admin";
  if (!BASE_PATH.test(basePath)) throw AdminErrors.INVALID_BASE_PATH(basePath);
  let tasks: ScriptTasks | undefined;
  let permissions: AdminPermissions | undefined;

  return {
    name: "admin",
    dependsOn: ["database"],
    register(ctx) {
      ctx.container.bind(ADMIN_PERMISSIONS, startedService(() => permissions, AdminErrors.NOT_STARTED));
    },
    async start(ctx: PluginContext) {
      const registry = ctx.container.tryResolve(MODEL_REGISTRY)?.list() ?? [];
      // Binding ROLE_RESOLVER is enough to turn role-based access on (without `accessControl`).
      const bound = ctx.container.tryResolve(ROLE_RESOLVER);
      const resolver: RoleResolver | undefined = options.accessControl?.roleResolver ?? bound ?? (options.accessControl ? rolesCollectionResolver() : undefined);
      const access = new AdminAccessPolicy(resolver);
      const audit = new AuditLog(auditLogModel(), ctx.logger);

      const entries: AdminEntry[] = adminConfigs(options, registry).map(({ config, registration }) => adminEntry(basePath, config, registration));
      entries.push(adminEntry(basePath, auditLogConfig(), undefined, true));
      checkRoutes(entries);

      const http = ctx.resolve(HTTP_ROUTER);
      tasks = new ScriptTasks(options.scripts ?? {}, ctx.logger);
      // The JWT provider binds ACCOUNTS; session auth (better-auth owns passwords) does not.
      const accountsBound = ctx.container.isBound(ACCOUNTS);
      const hasAccountRoutes = (entry: AdminEntry) => administersAccounts(entry, accountsBound);
      // A user deleted here is an account deleted: its sign-ins end, its password goes, the app's onDeleted runs.
      const deletedUser = (entry: AdminEntry): RecordDeleted | undefined =>
        hasAccountRoutes(entry) ? (record) => ctx.resolve(ACCOUNTS).accountDeleted({ ...record, id: String(record._id) }) : undefined;
      const routers = new Map(entries.map((entry) => [entry, adminModelRouter(entry, access, audit, deletedUser(entry))]));
      permissions = adminPermissions(access);
      mountAdminRoutes(http, {
        basePath,
        permissions,
        describe: adminConfigFor(entries, options.customScreens ?? [], basePath, access, (entry) => routers.get(entry)!.analysis.readOnlyPaths, hasAccountRoutes),
        tasks,
        roles: resolver ?? rolesCollectionResolver(),
        config: ctx.config,
        appVersion: options.appVersion ?? { name: ctx.openapi.document().info.title, version: ctx.openapi.document().info.version },
        configurationKeys: options.configurationKeys ?? [],
      });
      if (options.ui !== false) {
        const appName = options.ui?.appName ?? ctx.openapi.document().info.title;
        const signIn = options.ui?.signIn ?? (accountsBound ? "jwt" : "session");
        mountAdminUi(http, { basePath, signIn, appName, screenScripts: options.ui?.screenScripts ?? [] }, () => ctx.logger);
      }
      const bulk: { entry: AdminEntry; update: SchemaObject; remove: SchemaObject }[] = [];
      const accounts: AdminEntry[] = [];
      for (const [entry, router] of routers) {
        // Bulk and account routes first: they sit beside the router's `/:id` routes.
        if (!entry.readOnly) {
          mountBulkRoutes(http, entry, router, access, audit, deletedUser(entry));
          bulk.push({ entry, ...bulkSchemas(entry, router) });
        }
        if (hasAccountRoutes(entry)) {
          // Resolved per request: the auth plugin may start after this one.
          mountUserAccountRoutes(http, entry, router, access, audit, () => ctx.resolve(ACCOUNTS));
          accounts.push(entry);
        }
        await router.start?.(ctx);
      }
      documentAdmin(ctx.openapi, basePath, bulk, accounts);
    },
    async stop() {
      await tasks?.stop();
      tasks = undefined;
      permissions = undefined;
    },
  };
}

function checkRoutes(entries: readonly AdminEntry[]): void {
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const first = entry.routePath.split("/")[1] ?? "";
    if ((ADMIN_OWN_ROUTES as readonly string[]).includes(`/${first}`)) throw AdminErrors.RESERVED_ROUTE(entry.routePath, entry.modelName);
    const holder = seen.get(entry.routePath);
    if (holder !== undefined) throw AdminErrors.DUPLICATE_ROUTE(entry.routePath, holder, entry.modelName);
    seen.set(entry.routePath, entry.modelName);
  }
}
