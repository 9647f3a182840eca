// The `svc/admin` package entry: the admin plugin's public surface. Other plugins import the
// admin only through this file.
export { adminPlugin } from "./admin-plugin.js";
export type { AdminAccessControl, AdminOptions, AdminUiOptions } from "./admin-options.js";
export { adminOwnedBy, type AdminOwnership } from "./admin-owned-by.js";
export { AdminErrors } from "./errors.js";
export { TOOL_PERMISSIONS } from "./admin-access.js";
export { ADMIN_PERMISSIONS, type AdminPermissions } from "./admin-permissions.js";
export { grants } from "./permission-set.js";
export type { AdminConfig, AdminConfigModel, AdminControl, AdminCustomScreen, AdminField, AdminPlatformTool, BulkResult, ConfigurationView, VersionInfo } from "./admin-api-shapes.js";
export type { AdminScreen, AdminScreenContext, AdminScreenElement, AdminScreenRegistry, AdminScreenRequest, AdminScreenRequestError } from "./admin-screen-api.js";
export type { AdminScript, AdminScriptContext, ScriptTask, ScriptTaskStatus } from "./script-tasks.js";
export { MAX_BULK_IDS } from "./bulk-routes.js";
export { auditLogModel, type AuditLogEntryFields, type AuditLogModel } from "./audit-log.js";
// The role port and its adapters, for apps that plug in their own roles.
export { ROLE_RESOLVER, type RoleDefinition, type RoleResolver } from "../../contracts/role-resolver.js";
export { roleModel, rolesCollectionResolver, type RoleDocument, type RoleModel } from "../../adapters/role-resolver/roles-collection.js";
export { inMemoryRoleResolver } from "../../adapters/role-resolver/in-memory.js";
export type { AdminAccess, AdminModel, AdminModelConfig } from "../../contracts/admin-model-config.js";
