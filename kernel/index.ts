// The kernel's public surface, re-exported by the package entry.
export { APIError, isAPIError, type APIErrorOptions, type ErrorObject, type ErrorResponseBody, type ErrorSource } from "./api-error.js";
export { loadConfig, type NodeEnv, type SvcConfig } from "./config.js";
export { ContainerErrors, SvcContainer, token, type Provider, type Token } from "./container.js";
export { DependencyErrors, orderByDependencies } from "./dependency-order.js";
export { ConfigErrors, readEnvironment, type Environment } from "./environment.js";
export { defineErrors, hasErrorCode, SvcError, type ErrorFactory, type ErrorSpec } from "./errors.js";
export { KernelErrors, SvcKernel, type KernelOptions } from "./kernel.js";
export { Lifecycle, LifecycleErrors, type LifecycleState } from "./lifecycle.js";
export { LOGGER, type SvcLogger } from "./logger.js";
export { OpenApiErrors, OpenApiRegistry, toOpenApiPath, type SerializedOpenApi } from "./openapi-registry.js";
export { isSvcPlugin, type PluginContext, type SvcPlugin } from "./plugin.js";
export { CONFIG, KERNEL, OPENAPI } from "./tokens.js";
