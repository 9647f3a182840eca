// The logging capability's public surface, re-exported by the package entry's `--- logging` section.
// Other plugins import logging only through this file. The request context itself is the
// kernel's (`runWithRequestContext`, `getRequestContext`).
export { loggingPlugin, type LoggingPluginOptions } from "./logging-plugin.js";
export { logger } from "./logger.js";
export { setupLogging } from "./setup-logging.js";
export { createSvcLogger, type SetupLoggingOptions, type WinstonSvcLogger } from "./create-logger.js";
export { createScopedLogger, type ScopedLoggerOptions, type LogLabelValue } from "./scoped-logger.js";
export { createFeatureFlaggedLogger, type FeatureFlaggedLogger, type FeatureFlaggedLoggerOptions } from "./feature-flagged-logger.js";
export { getCurrentLogContext, type LogContext, type CorrelationField } from "./log-context.js";
export { getCurrentRequestContextAttributes } from "./context-headers.js";
export { LogCapture, type CapturedLogLine } from "./log-capture.js";
export { monitorSlowDatabaseOperations, type SlowDatabaseOperationOptions, type CommandEventSource } from "./slow-database-operations.js";
export { createErrorTrackerFromConfig } from "./error-tracker-from-config.js";
export { LoggingErrors } from "./errors.js";
// Shared by every place that shows values which may hold secrets (log lines, the admin's Configuration tool).
export { isSecretKey, REDACTED, redactSecrets, redactUrl } from "./redact-secrets.js";
