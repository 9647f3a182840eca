import type { SvcContainer, Token } from "./container.js";
import type { SvcConfig } from "./config.js";
import type { SvcLogger } from "./logger.js";
import type { OpenApiRegistry } from "./openapi-registry.js";

/** What a plugin sees in each lifecycle phase. */
export interface PluginContext {
  /** The kernel's own container (isolated from other kernels in the process). */
  readonly container: SvcContainer;
  readonly config: SvcConfig;
  readonly openapi: OpenApiRegistry;
  readonly logger: SvcLogger;
  /** Shorthand for `container.resolve(token)`. */
  resolve<T>(key: Token<T>): T;
}

/**
 * A capability that plugs into the kernel. `register` only binds tokens (synchronous, no I/O: an
 * `async register` fails the start with `KERNEL_ASYNC_REGISTER`);
 * `start` opens connections, mounts routes and contributes OpenAPI; `stop` releases what `start`
 * took. Stop runs in reverse start order and only for plugins that started.
 *
 * @example
 * const healthPlugin: SvcPlugin = {
 *   name: "health",
 *   dependsOn: ["database"],
 *   start(ctx) {
 *     ctx.resolve(HTTP_ROUTER).get("/health", (_req, res) => res.json({ data: { ok: true } }));
 *   },
 * };
 */
export interface SvcPlugin {
  /** Unique, kebab-case. */
  readonly name: string;
  /** Names of plugins that must start before this one. */
  readonly dependsOn?: readonly string[];
  /** Per-plugin phase time limits in milliseconds (defaults come from the kernel). */
  readonly timeouts?: { readonly start?: number; readonly stop?: number };
  register?(ctx: PluginContext): void;
  start?(ctx: PluginContext): Promise<void> | void;
  stop?(ctx: PluginContext): Promise<void> | void;
}

/** True when `value` has the shape of an `SvcPlugin`. */
export function isSvcPlugin(value: unknown): value is SvcPlugin {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
  const candidate = value as Partial<SvcPlugin>;
  return (
    typeof candidate.name === "string" &&
    (typeof candidate.register === "function" ||
      typeof candidate.start === "function" ||
      typeof candidate.stop === "function")
  );
}
