import { modelRouter, Permissions, type MethodPermissions, type ModelRouter } from "../rest/index.js";
import type { FeatureFlagDocument, FeatureFlagModel } from "./feature-flag-model.js";
import { FEATURE_FLAGS_TAG } from "./flag-openapi-tag.js";

const ADMIN_ONLY: MethodPermissions = {
  list: [Permissions.IsAdmin],
  create: [Permissions.IsAdmin],
  read: [Permissions.IsAdmin],
  update: [Permissions.IsAdmin],
  delete: [Permissions.IsAdmin],
};

/**
 * The flags' admin CRUD at `<basePath>/flags`: a model router (so it is validated, paginated and
 * documented like every generated route; DELETE soft-deletes), admins only unless `permissions`
 * says otherwise.
 *
 * @example
 * const crud = flagCrudRouter("/feature-flags", featureFlagModel());
 */
export function flagCrudRouter(basePath: string, model: FeatureFlagModel, permissions: MethodPermissions = ADMIN_ONLY): ModelRouter<FeatureFlagDocument> {
  return modelRouter(`${basePath}/flags`, model, {
    permissions,
    queryFields: ["key", "type", "enabled", "archived"],
    sort: "-created",
    // The plugin's one tag; the ids stay the model's (listFeatureFlags, readFeatureFlag...).
    openApi: { tag: FEATURE_FLAGS_TAG.name, tagDescription: FEATURE_FLAGS_TAG.description },
  });
}
