import { token } from "./container.js";
import type { SvcConfig } from "./config.js";
import type { SvcKernel } from "./kernel.js";
import type { OpenApiRegistry } from "./openapi-registry.js";

/** The kernel itself (bound by the kernel). */
export const KERNEL = token<SvcKernel>("kernel.Kernel");
/** The parsed configuration (bound by the kernel). */
export const CONFIG = token<SvcConfig>("kernel.Config");
/** The OpenAPI registry plugins contribute to (bound by the kernel). */
export const OPENAPI = token<OpenApiRegistry>("kernel.OpenApi");
