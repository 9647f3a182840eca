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
export { correlationMiddleware, correlationFromHeaders, parseTraceparent, parseCloudTraceContext } from "./plugins/logging/correlation-middleware.js";
export { setupLogging } from "./plugins/logging/setup-logging.js";
export { createSvcLogger, type SetupLoggingOptions, type WinstonSvcLogger } from "./plugins/logging/create-logger.js";
export { createScopedLogger, type ScopedLoggerOptions, type LogLabelValue } from "./plugins/logging/scoped-logger.js";
export {
  createFeatureFlaggedLogger,
  type FeatureFlaggedLogger,
  type FeatureFlaggedLoggerOptions,
} from "./plugins/logging/feature-flagged-logger.js";
export {
  getCurrentLogContext,
  formatLogContextSuffix,
  RESERVED_LOG_KEYS,
  CORRELATION_FIELDS,
  type LogContext,
  type CorrelationField,
} from "./plugins/logging/log-context.js";
export { getCurrentRequestContextAttributes } from "./plugins/logging/context-headers.js";
export { redactSecrets, redactUrl, isSecretKey, REDACTED } from "./plugins/logging/redact-secrets.js";
export { LogCapture, type CapturedLogLine } from "./plugins/logging/log-capture.js";
export { LoggingErrors } from "./plugins/logging/errors.js";
export { requestLoggingMiddleware, type RequestLoggingOptions } from "./plugins/logging/request-logging-middleware.js";
export {
  monitorSlowDatabaseOperations,
  type SlowDatabaseOperationOptions,
  type CommandEventSource,
} from "./plugins/logging/slow-database-operations.js";
export { ErrorTrackerTransport } from "./plugins/logging/error-tracker-transport.js";
export { createErrorTrackerFromConfig } from "./plugins/logging/error-tracker-from-config.js";
export { loggingPlugin, type LoggingPluginOptions } from "./plugins/logging/logging-plugin.js";
export type { ErrorTrackerLogEntry, ErrorTrackerLogLevel } from "./contracts/error-tracker.js";
export { createNoopErrorTracker } from "./adapters/error-tracker/noop.js";
export { InMemoryErrorTracker, type CapturedException } from "./adapters/error-tracker/in-memory.js";

// --- http client (plugins/http-client) --------------------------------------------------------
export {
  createAuthenticatedClient,
  type AuthenticatedClient,
  type CreateAuthenticatedClientOptions,
  type OutboundAuth,
  type BearerAuth,
  type OAuth2Auth,
  type ApiKeyAuth,
} from "./plugins/http-client/create-authenticated-client.js";
export { OAuth2TokenSource, type OAuth2ClientCredentials } from "./plugins/http-client/oauth2-token-source.js";
export {
  markRetryUnsafe,
  computeRetryDelay,
  isRetryableRequestError,
  DEFAULT_RETRY,
  type RetryOptions,
  type RetryEvent,
} from "./plugins/http-client/retry-policy.js";
export {
  normalizeApiError,
  classifyStatus,
  messagesFromBody,
  MAX_API_ERROR_MESSAGE_LENGTH,
  type NormalizedApiError,
  type ApiErrorClassification,
} from "./plugins/http-client/normalize-api-error.js";
export { withApiErrorHandling, type ApiErrorHandlingOptions } from "./plugins/http-client/with-api-error-handling.js";
export { ApiCallError, HttpClientErrors } from "./plugins/http-client/errors.js";

// --- notifiers (plugins/notifiers) ------------------------------------------------------------
export { sendToSlack, type SlackNotifyOptions, type SlackBlock } from "./plugins/notifiers/slack.js";
export { sendToGoogleChat, type GoogleChatNotifyOptions, type GoogleChatSection } from "./plugins/notifiers/google-chat.js";
export { sendToZoom, type ZoomNotifyOptions, type ZoomBodyItem } from "./plugins/notifiers/zoom.js";
export type { NotifyOptions, NotifyResult } from "./plugins/notifiers/post-to-webhook.js";
export { resolveWebhookUrl, CHAT_WEBHOOK_VARIABLES, type ChatService, type WebhookTarget } from "./plugins/notifiers/webhook-targets.js";
export {
  signWebhookPayload,
  verifyWebhookSignature,
  isValidWebhookSignature,
  type VerifyWebhookSignatureOptions,
} from "./plugins/notifiers/webhook-signature.js";
export { webhookSignatureMiddleware, type WebhookSignatureMiddlewareOptions } from "./plugins/notifiers/webhook-signature-middleware.js";
export { captureRawBody } from "./plugins/notifiers/raw-body.js";
export { NotifierErrors, WebhookSignatureErrors } from "./plugins/notifiers/errors.js";

// --- scripts (plugins/scripts) ----------------------------------------------------------------
export { wrapScript, type WrapScriptOptions } from "./plugins/scripts/wrap-script.js";
export { cronjob, type CronjobOptions, type CronjobHandle } from "./plugins/scripts/cronjob.js";
export { timeout } from "./plugins/scripts/timeout.js";
export { ScriptErrors } from "./plugins/scripts/errors.js";

// --- rest (plugins/rest) ----------------------------------------------------------------------
export * from "./plugins/rest/index.js";

// --- auth (plugins/auth) ----------------------------------------------------------------------
export { AUTHENTICATOR, type Authenticator } from "./contracts/authenticator.js";
export * from "./plugins/auth/index.js";
