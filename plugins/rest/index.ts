// The REST capability's public surface, re-exported by the package entry's `--- rest` section.
export { modelRouter, modelRouterName, type ModelRouter, type PathlessModelRouter } from "./model-router.js";
export type {
  LegacyTransformer,
  MaybePromise,
  ModelAdminOptions,
  ModelMcpOptions,
  ModelRouterOpenApiOptions,
  ModelRouterOptions,
  ModelRouterValidationOptions,
  ModelSyncOptions,
  ModelThrottle,
  PopulatePath,
  RequestBody,
  ResponseDocument,
  RestModel,
  SyncScope,
} from "./model-router-options.js";
export { Permissions, REST_METHODS, checkPermissions, requiresAuthentication, type MethodPermissions, type PermissionCheck, type PermissionContext, type RestMethod } from "./permissions.js";
export { OwnerQueryFilter, type QueryFilter, type QueryFilterContext, type QueryFilterObject } from "./owner-query-filter.js";
export { ALLOWED_OPERATORS, MAX_IN_VALUES, MAX_PAGE, MAX_REGEX_LENGTH, type ListQuery } from "./list-query.js";
export { FIELDS_PARAMETER } from "./sparse-fields.js";
export { DEFAULT_LIMIT, MAX_LIMIT, type ModelAnalysis } from "./model-analysis.js";
export { RestErrors } from "./errors.js";
export { applyPatch } from "./apply-patch.js";
export { saveLoaded, type SaveOutcome } from "./save-loaded.js";
export { retryStaleWrite } from "./stale-write-retry.js";
// Lifecycle hooks run the same way by every plugin that applies a router's hooks (sync).
export { hookDenied, runHook } from "./hook-errors.js";
export { mongooseJsonSchema, type JsonSchemaMode, type JsonSchemaOptions, type SchemaPaths } from "./json-schema/mongoose-json-schema.js";
export { fieldsWithoutDescription } from "./field-descriptions.js";
// Schema plugins and helpers (SPEC §2.2).
export { findExactlyOne, type FindExactlyOneStatics } from "./schema/find-exactly-one.js";
export { findOneOrNone, type FindOneOrNoneStatics } from "./schema/find-one-or-none.js";
export { upsertPlugin, type UpsertStatics } from "./schema/upsert-plugin.js";
export { DateOnly, registerDateOnlyType, toUtcMidnight } from "./schema/date-only.js";
export { createdUpdatedPlugin, type CreatedUpdatedDocument, type CreatedUpdatedFields } from "./schema/created-updated-plugin.js";
export { isDeletedPlugin, usesSoftDelete, type IsDeletedFields } from "./schema/is-deleted-plugin.js";
export { defaultPlugins } from "./schema/default-plugins.js";
export { checkModelsStrict, strictnessProblems } from "./schema/check-models-strict.js";
export { isValidObjectId } from "./schema/object-id.js";
// Hand-written routes validated like generated ones (the validators themselves: svc's validation section).
export { validateModelRequestBody, type ModelBodyValidatorOptions } from "./model-body-validator.js";
