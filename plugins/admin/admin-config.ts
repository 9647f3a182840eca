import type { RequestUser } from "../../contracts/request-user.js";
import { TOOL_PERMISSIONS, type AdminAccessPolicy } from "./admin-access.js";
import type { AdminEntry } from "./admin-entry.js";
import type { AdminConfig, AdminConfigModel, AdminCustomScreen } from "./admin-api-shapes.js";
import { adminFields } from "./field-metadata.js";

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
  administersAccounts: (entry: AdminEntry) => boolean = () => false,
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
      const [create, update, remove, protectedFields] = await Promise.all([
        access.decide(entry, "create", user),
        access.decide(entry, "update", user),
        access.decide(entry, "delete", user),
        access.writesProtected(entry, user),
      ]);
      const actions = { create: { disabled: !create }, update: { disabled: !update }, delete: { disabled: !remove }, bulkUpdate: { disabled: !update }, bulkDelete: { disabled: !remove } };
      // The account actions are protected: updating the record is not enough, `write` is needed too.
      const account = { disabled: !(update && protectedFields) };
      models.push({ ...model, actions: administersAccounts(entry) ? { ...actions, setPassword: account, endSignIns: account } : actions });
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
