import { SvcContainer, type Token } from "./container.js";
import { loadConfig, type SvcConfig } from "./config.js";
import { ConfigErrors } from "./environment.js";
import { orderByDependencies } from "./dependency-order.js";
import { KernelErrors } from "./kernel-errors.js";
import { Lifecycle, type LifecycleState } from "./lifecycle.js";
import { LOGGER, type SvcLogger } from "./logger.js";
import { OpenApiRegistry } from "./openapi-registry.js";
import { hasErrorCode, SvcError } from "./svc-error.js";
import type { PluginContext, SvcPlugin } from "./plugin.js";
import { CONFIG, KERNEL, OPENAPI } from "./tokens.js";
import { withTimeout } from "./with-timeout.js";

export interface KernelOptions {
  /** Defaults to `loadConfig(process.env)`. */
  config?: SvcConfig;
  /** Used until (and unless) a plugin binds `LOGGER`. Defaults to the console. */
  logger?: SvcLogger;
  /** Default per-plugin phase limits in ms: start 30 s, stop 10 s. */
  timeouts?: { start?: number; stop?: number };
  /** The OpenAPI document's info block. */
  info?: { title: string; version: string; description?: string };
}

const PLUGIN_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*(?::[a-z0-9]+(?:-[a-z0-9]+)*)*$/;

/**
 * Owns the lifecycle, the DI container and the OpenAPI registry of one app. Plugins move through
 * `created → registered → started → stopped`; start follows `dependsOn`; stop is the exact reverse
 * and only touches plugins that started. Each kernel has its own container, so several apps can
 * live in one process (as tests do) without sharing bindings.
 *
 * @example
 * const kernel = new SvcKernel();
 * kernel.add(databasePlugin).add(todoRouter);
 * await kernel.start();
 * // ...
 * await kernel.stop();
 */
export class SvcKernel {
  readonly container: SvcContainer;
  readonly config: SvcConfig;
  readonly openapi: OpenApiRegistry;
  private readonly lifecycle = new Lifecycle();
  private readonly plugins: SvcPlugin[] = [];
  private readonly started: SvcPlugin[] = [];
  private readonly timeouts: { start: number; stop: number };
  private readonly failedStops: string[] = [];
  private readonly context: PluginContext;
  private stopping?: Promise<void>;

  constructor(options: KernelOptions = {}) {
    this.container = SvcContainer.create();
    this.config = options.config ?? loadConfig();
    this.openapi = new OpenApiRegistry(options.info ?? { title: "svc API", version: "1.0.0" });
    this.timeouts = { start: options.timeouts?.start ?? 30_000, stop: options.timeouts?.stop ?? 10_000 };
    this.container.bind(KERNEL, { useValue: this });
    this.container.bind(CONFIG, { useValue: this.config });
    this.container.bind(OPENAPI, { useValue: this.openapi });
    const fallbackLogger = options.logger ?? console;
    const container = this.container;
    this.context = {
      container,
      config: this.config,
      openapi: this.openapi,
      // Resolved on each use so a logging plugin that binds LOGGER later takes over.
      get logger() {
        return container.tryResolve(LOGGER) ?? fallbackLogger;
      },
      resolve: <T>(key: Token<T>) => container.resolve(key),
    };
  }

  get state(): LifecycleState {
    return this.lifecycle.state;
  }

  /** The shared context every plugin phase receives. */
  get pluginContext(): PluginContext {
    return this.context;
  }

  /** Adds a plugin; only before `register()`. Names are unique and kebab-case. */
  add(plugin: SvcPlugin): this {
    this.lifecycle.assert(["created"], `add plugin "${plugin.name}"`);
    if (!PLUGIN_NAME.test(plugin.name)) throw KernelErrors.INVALID_PLUGIN_NAME(plugin.name);
    if (this.has(plugin.name)) throw KernelErrors.DUPLICATE_PLUGIN(plugin.name);
    this.plugins.push(plugin);
    return this;
  }

  has(name: string): boolean {
    return this.plugins.some((plugin) => plugin.name === name);
  }

  /** Plugin names in start order (valid once registered). */
  get startOrder(): readonly string[] {
    return this.plugins.map((plugin) => plugin.name);
  }

  /** Orders plugins by `dependsOn` and runs every `register` (synchronous: bindings only). */
  register(): void {
    this.lifecycle.assert(["created"], "register plugins");
    const ordered = orderByDependencies(this.plugins);
    this.plugins.splice(0, this.plugins.length, ...ordered);
    // Malformed variables of every plugin are reported together, so one attempt shows them all.
    const misconfigured: Array<{ plugin: string; error: SvcError }> = [];
    for (const plugin of this.plugins) {
      try {
        // `async register()` type-checks (a promise fits a `void` return) but its bindings would
        // land after start began and a rejection would crash the process later: refuse it now.
        const returned: unknown = plugin.register?.(this.context);
        if (isThenable(returned)) {
          returned.then(undefined, () => undefined);
          throw KernelErrors.ASYNC_REGISTER(plugin.name);
        }
      } catch (error) {
        if (hasErrorCode(error, ConfigErrors.INVALID_ENVIRONMENT)) misconfigured.push({ plugin: plugin.name, error });
        // After a misconfigured plugin, other errors may only be its consequences: the
        // configuration is reported, and the rest shows once it is fixed.
        else if (misconfigured.length === 0) throw wrapPhaseError("register", plugin.name, error);
      }
    }
    if (misconfigured.length === 1) throw wrapPhaseError("register", misconfigured[0]!.plugin, misconfigured[0]!.error);
    if (misconfigured.length > 1) throw combinedConfigurationError(misconfigured);
    this.lifecycle.transition("registered", "register plugins");
  }

  /**
   * Starts plugins in dependency order. If one fails or times out, the ones already started are
   * stopped in reverse order and the original error is rethrown; the kernel ends `failed`.
   */
  async start(): Promise<void> {
    if (this.lifecycle.state === "created") this.register();
    this.lifecycle.transition("starting", "start");
    for (const plugin of this.plugins) {
      try {
        if (plugin.start) {
          const limit = plugin.timeouts?.start ?? this.timeouts.start;
          await withTimeout(Promise.resolve().then(() => plugin.start!(this.context)), limit, () =>
            KernelErrors.PHASE_TIMEOUT("start", plugin.name, limit),
          );
        }
        this.started.push(plugin);
      } catch (error) {
        await this.stopStarted();
        this.lifecycle.transition("failed", "start");
        throw wrapPhaseError("start", plugin.name, error);
      }
    }
    this.lifecycle.transition("started", "start");
  }

  /**
   * Stops started plugins in reverse start order. Idempotent: concurrent and repeated calls share
   * one shutdown. A plugin that fails or times out in `stop` is logged and the rest still stop.
   */
  async stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    const state = this.lifecycle.state;
    if (state === "created" || state === "registered" || state === "failed" || state === "stopped") return;
    this.lifecycle.assert(["started"], "stop");
    this.lifecycle.transition("stopping", "stop");
    this.stopping = this.stopStarted().then(() => this.lifecycle.transition("stopped", "stop"));
    return this.stopping;
  }

  /** The plugins whose `stop` failed or timed out (logged as they did): a stop that was not clean. */
  get stopFailures(): readonly string[] {
    return this.failedStops;
  }

  private async stopStarted(): Promise<void> {
    while (this.started.length > 0) {
      const plugin = this.started.pop()!;
      if (!plugin.stop) continue;
      const limit = plugin.timeouts?.stop ?? this.timeouts.stop;
      try {
        await withTimeout(Promise.resolve().then(() => plugin.stop!(this.context)), limit, () =>
          KernelErrors.PHASE_TIMEOUT("stop", plugin.name, limit),
        );
      } catch (error) {
        this.context.logger.error(`Plugin "${plugin.name}" failed to stop cleanly`, { error: describeError(error) });
        this.failedStops.push(plugin.name);
      }
    }
  }
}

/**
 * Keeps coded errors (their code and class are the contract), naming the plugin in an SvcError's
 * message so a start-up failure says where it came from; wraps anything else with context.
 */
function wrapPhaseError(phase: string, name: string, error: unknown): Error {
  if (error instanceof SvcError) return namingPlugin(error, phase, name);
  if (error instanceof Error && "code" in error && typeof error.code === "string") return error;
  const wrapped = KernelErrors.PHASE_FAILED(phase, name, describeError(error));
  if (error !== undefined) Object.defineProperty(wrapped, "cause", { value: error });
  return wrapped;
}

/** One CONFIG_INVALID_ENVIRONMENT listing every plugin's malformed variables, each line naming its plugin. */
function combinedConfigurationError(misconfigured: ReadonlyArray<{ plugin: string; error: SvcError }>): SvcError {
  const problems = misconfigured.flatMap(({ plugin, error }) =>
    error.message
      .split("\n")
      .slice(1)
      .map((line) => `${line} (plugin "${plugin}")`),
  );
  return ConfigErrors.INVALID_ENVIRONMENT(problems.join("\n"));
}

function namingPlugin(error: SvcError, phase: string, name: string): SvcError {
  if (error.message.includes(`"${name}"`)) return error;
  const stack = error.stack; // formatted now, with the message as thrown
  const message = `Plugin "${name}" failed to ${phase}: ${error.message}`;
  if (stack !== undefined) error.stack = stack.replace(error.message, message);
  error.message = message;
  return error;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
