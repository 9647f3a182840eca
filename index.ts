// The `svc` package entry. Each capability owns one section; add exports to your own section only.

// --- kernel ---------------------------------------------------------------------------------
export * from "./kernel/index.js";

// --- contracts (ports and their tokens) -------------------------------------------------------
export { AUTHENTICATION_MIDDLEWARE, HTTP_ROUTER, MOUNT_AT, REQUEST_LOGGING_MIDDLEWARE, type PathlessRouter } from "./contracts/http.js";
export type { RequestUser } from "./contracts/request-user.js";
export { DATABASE, DATABASE_CONNECTOR, type Database, type DatabaseConnector, type OpenDatabase } from "./contracts/database.js";
export { ERROR_TRACKER, type ErrorTracker, type ErrorTrackerContext } from "./contracts/error-tracker.js";

// --- hosts ----------------------------------------------------------------------------------
export { SvcApp, HostErrors, type SvcAppOptions, type RunningApp } from "./hosts/svc-app.js";
export { setupServer, type SetupServerOptions, type LegacyServer } from "./hosts/setup-server.js";
export { STACK_ORDER } from "./hosts/http-stack.js";
export { toAPIError } from "./hosts/error-response.js";

// --- database -------------------------------------------------------------------------------
export { databasePlugin, type DatabasePluginOptions } from "./plugins/database/database-plugin.js";
export { createExternalConnector } from "./adapters/database/external.js";
export { createEmbeddedConnector } from "./adapters/database/embedded.js";
export { DatabaseErrors } from "./adapters/database/errors.js";

// --- logging (plugins/logging) ----------------------------------------------------------------
export { logger } from "./plugins/logging/logger.js";
export { runWithRequestContext, getRequestContext, type RequestContext } from "./plugins/logging/request-context.js";
export { correlationMiddleware } from "./plugins/logging/correlation-middleware.js";

// --- http client (plugins/http-client) --------------------------------------------------------

// --- notifiers (plugins/notifiers) ------------------------------------------------------------

// --- scripts (plugins/scripts) ----------------------------------------------------------------

// --- rest (plugins/rest) ----------------------------------------------------------------------
export * from "./plugins/rest/index.js";

// --- auth (plugins/auth) ----------------------------------------------------------------------
