// The kernel's public surface, re-exported by the package entry.
export { APIError, isAPIError, type APIErrorOptions, type ErrorObject, type ErrorResponseBody, type ErrorSource } from "./api-error.js";
export { loadConfig, type NodeEnv, type SvcConfig } from "./config.js";
export { ContainerErrors, SvcContainer, token, type Provider, type Token } from "./container.js";
export { orderByDependencies } from "./dependency-order.js";
export { ConfigErrors, readEnvironment, type Environment } from "./environment.js";
export {
  catalogueCodes,
  defineErrors,
  hasErrorCode,
  SvcError,
  type ErrorFactory,
  type ErrorSpec,
  type HttpErrorDetails,
  type HttpErrorFactory,
  type HttpErrorSpec,
} from "./errors.js";
export { HttpErrors } from "./http-errors.js";
export { KernelErrors } from "./kernel-errors.js";
export { startedService } from "./started-service.js";
export { SvcKernel, type KernelOptions } from "./kernel.js";
export { Lifecycle, type LifecycleState } from "./lifecycle.js";
export { LOGGER, type SvcLogger } from "./logger.js";
export { getRequestContext, runWithRequestContext, type RequestContext } from "./request-context.js";
export { OpenApiErrors, OpenApiRegistry, type SerializedOpenApi } from "./openapi-registry.js";
export { BEARER_SCHEME, SHARED_COMPONENTS, sharedResponse, sharedResponses, type SharedResponse } from "./openapi-shared-components.js";
export { isSvcPlugin, type PluginContext, type SvcPlugin } from "./plugin.js";
export { CONFIG, KERNEL, OPENAPI } from "./tokens.js";
