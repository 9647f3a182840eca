// The `svc` package entry. Each capability owns one section; add exports to your own section only.

// --- kernel ---------------------------------------------------------------------------------
export * from "./kernel/index.js";

// --- contracts (ports and their tokens) -------------------------------------------------------
export { AUTHENTICATION_MIDDLEWARE, HTTP_ROUTER, MOUNT_AT, OMIT_BODY_FROM_LOG, QUIET_REQUEST_LOG, REQUEST_LOGGING_MIDDLEWARE, type PathlessRouter } from "./contracts/http.js";
export { requireUser, type RequestUser } from "./contracts/request-user.js";
export { isUserSchema, MANAGED_USER_FIELDS } from "./contracts/user-fields.js";
export { DATABASE, DATABASE_CONNECTOR, type Database, type DatabaseConnector, type OpenDatabase } from "./contracts/database.js";
export { ERROR_TRACKER, type ErrorTracker, type ErrorTrackerContext } from "./contracts/error-tracker.js";
export { captureRawBody } from "./contracts/raw-body.js";
export {
  MODEL_REGISTRY,
  type ModelAdminOptions,
  type ModelHookName,
  type ModelMcpOptions,
  type ModelRegistration,
  type ModelRegistry,
  type ModelSyncOptions,
  type SyncScope,
} from "./contracts/model-registry.js";
export type { MethodPermissions, PermissionCheck, PermissionContext, PermissionObject, RestMethod } from "./contracts/model-permissions.js";
export { SOCKET_ADAPTER, SOCKET_SERVER, type SocketAdapter, type SocketData, type SocketRefusal, type SocketServer, type SvcSocket } from "./contracts/socket-server.js";
export type { AdminAccess, AdminModel, AdminModelConfig } from "./contracts/admin-model-config.js";

// --- hosts ----------------------------------------------------------------------------------
export { SvcApp, HostErrors, type SvcAppOptions, type RunningApp } from "./hosts/svc-app.js";
export { setupServer, type SetupServerOptions, type LegacyServer } from "./hosts/setup-server.js";
export { toAPIError } from "./hosts/error-response.js";
export { EXPOSED_HEADERS } from "./hosts/http-stack.js";
export { answerClientErrors } from "./hosts/client-error-answers.js";
export type { SocketServerOptions } from "./hosts/socket-server.js";

// --- database -------------------------------------------------------------------------------
export * from "./plugins/database/index.js";

// --- logging (plugins/logging) ----------------------------------------------------------------
export * from "./plugins/logging/index.js";
export type { ErrorTrackerLogEntry, ErrorTrackerLogLevel } from "./contracts/error-tracker.js";
export { createNoopErrorTracker } from "./adapters/error-tracker/noop.js";
export { InMemoryErrorTracker, type CapturedException } from "./adapters/error-tracker/in-memory.js";

// --- http client (plugins/http-client) --------------------------------------------------------
export * from "./plugins/http-client/index.js";

// --- notifiers (plugins/notifiers) ------------------------------------------------------------
export * from "./plugins/notifiers/index.js";

// --- scripts (plugins/scripts) ----------------------------------------------------------------
export * from "./plugins/scripts/index.js";

// --- validation (plugins/validation) ----------------------------------------------------------
export {
  ValidationErrors,
  configureOpenApiValidator,
  createValidator,
  DEFAULT_VALIDATOR_SETTINGS,
  isRequestValidationError,
  operatorKeys,
  unstorableKeys,
  requestValidationError,
  requireJsonBody,
  validateQueryParams,
  validateRequestBody,
  VALIDATOR_SETTINGS,
  type CombinedValidatorOptions,
  type OpenApiValidatorOptions,
  type PropertySchema,
  type RequestValidatorOptions,
  type ValidationIssue,
  type ValidationSchema,
  type ValidatorSettings,
} from "./plugins/validation/index.js";

// --- rest (plugins/rest) ----------------------------------------------------------------------
export * from "./plugins/rest/index.js";

// --- throttle (plugins/throttle) --------------------------------------------------------------
export { THROTTLE_STORE, type ThrottleBudget, type ThrottleStore } from "./contracts/throttle-store.js";
export * from "./plugins/throttle/index.js";

// --- idempotency (plugins/idempotency) ---------------------------------------------------------
export * from "./plugins/idempotency/index.js";

// --- probes (plugins/health) --------------------------------------------------------------------
export * from "./plugins/health/index.js";

// --- redis (plugins/redis, CACHE_URL) --------------------------------------------------------
export { REDIS_CLIENT, type RedisClient } from "./contracts/redis.js";
export * from "./plugins/redis/index.js";

// --- auth (plugins/auth) ----------------------------------------------------------------------
export { AUTHENTICATOR, type Authenticator } from "./contracts/authenticator.js";
export * from "./plugins/auth/index.js";
