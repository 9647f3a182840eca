import type { RequestUser } from "../../contracts/request-user.js";
import { TOOL_PERMISSIONS, type AdminAccessPolicy } from "./admin-access.js";
import type { AdminEntry } from "./admin-entry.js";
import type { AdminCustomScreen } from "./admin-options.js";
import { adminFields, type AdminField } from "./field-metadata.js";

/** A control of the admin UI, and whether this caller may use it. */
export interface AdminControl {
  readonly disabled: boolean;
}

/** One model in `GET {basePath}/config`. */
export interface AdminConfigModel {
  readonly name: string;
  readonly routePath: string;
  readonly displayName: string;
  readonly listFields: readonly string[];
  readonly defaultSort: string;
  readonly fields: Readonly<Record<string, AdminField>>;
  /** What the caller may do; update and delete may still be refused per record (see `_adminCapabilities`). */
  readonly actions: { readonly create: AdminControl; readonly update: AdminControl; readonly delete: AdminControl; readonly bulkUpdate: AdminControl; readonly bulkDelete: AdminControl };
}

/** A platform tool's visibility, and its controls. */
export interface AdminPlatformTool {
  readonly visible: boolean;
  readonly routePath: string;
}

/** The body of `GET {basePath}/config`, for one caller. */
export interface AdminConfig {
  readonly basePath: string;
  readonly models: readonly AdminConfigModel[];
  readonly customScreens: readonly AdminCustomScreen[];
  readonly platformTools: {
    readonly scripts: AdminPlatformTool & { readonly run: AdminControl };
    readonly roles: AdminPlatformTool;
    readonly version: AdminPlatformTool;
    readonly configuration: AdminPlatformTool;
  };
}

/**
 * The caller's admin configuration (SPEC §2.6): the models they may read, with their fields and
 * the controls they may use (others `disabled`), the custom screens they hold `resource:action`
 * for, and which platform tools they see. The static part of each model (fields, paths) is
 * worked out once; only the decisions are per caller.
 *
 * @example
 * const describe = adminConfigFor(entries, screens, "/admin", access);
 * res.json({ data: await describe(req.user) });
 */
export function adminConfigFor(
  entries: readonly AdminEntry[],
  screens: readonly AdminCustomScreen[],
  basePath: string,
  access: AdminAccessPolicy,
  readOnlyPaths: (entry: AdminEntry) => ReadonlySet<string> = () => new Set(),
): (user: RequestUser) => Promise<AdminConfig> {
  const statics = entries.map((entry) => ({
    entry,
    name: entry.modelName,
    routePath: entry.fullPath,
    displayName: entry.displayName,
    listFields: entry.listFields,
    defaultSort: entry.defaultSort,
    fields: adminFields(entry.model.schema, readOnlyPaths(entry)),
  }));
  const tool = (routePath: string) => `${basePath}${routePath}`;
  return async (user) => {
    const models: AdminConfigModel[] = [];
    for (const { entry, ...model } of statics) {
      if (!(await access.decide(entry, "list", user))) continue;
      const [create, update, remove] = await Promise.all([access.decide(entry, "create", user), access.decide(entry, "update", user), access.decide(entry, "delete", user)]);
      models.push({
        ...model,
        actions: { create: { disabled: !create }, update: { disabled: !update }, delete: { disabled: !remove }, bulkUpdate: { disabled: !update }, bulkDelete: { disabled: !remove } },
      });
    }
    const customScreens: AdminCustomScreen[] = [];
    for (const screen of screens) if (await access.holds(user, `${screen.adminAccess.resource}:${screen.adminAccess.action}`)) customScreens.push(screen);
    const [runScripts, viewTasks, roles, configuration] = await Promise.all([
      access.holds(user, TOOL_PERMISSIONS.runScripts),
      access.holds(user, TOOL_PERMISSIONS.viewBackgroundTasks),
      access.holds(user, TOOL_PERMISSIONS.roles),
      access.holds(user, TOOL_PERMISSIONS.configuration),
    ]);
    return {
      basePath,
      models,
      customScreens,
      platformTools: {
        scripts: { visible: runScripts || viewTasks, routePath: tool("/scripts"), run: { disabled: !runScripts } },
        roles: { visible: roles, routePath: tool("/roles") },
        version: { visible: configuration, routePath: tool("/version") },
        configuration: { visible: configuration, routePath: tool("/configuration") },
      },
    };
  };
}
