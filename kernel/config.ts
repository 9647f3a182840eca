import { bool, port, readEnvironment, str, milliseconds, numberInRange, urlMap, type Environment } from "./environment.js";

export type NodeEnv = "development" | "production" | "test";

/**
 * The framework's configuration: SPEC §8's environment variables, parsed once with their defaults.
 * Plugins with variables of their own (auth, comms) parse them with `readEnvironment` from
 * `config.env`, so every variable is read the same way and reported the same way.
 */
export interface SvcConfig {
  readonly nodeEnv: NodeEnv;
  readonly isProduction: boolean;
  readonly port: number;
  /** `WEBSOCKET_PORT`, default `PORT + 1`. */
  readonly websocketPort: number;
  /** `DB_URI`, falling back to `DB_CONNECTION`; undefined means "use the embedded engine". */
  readonly dbUri?: string;
  readonly enableApiDocsUi: boolean;
  readonly disableLogAllRequests: boolean;
  readonly slowRequestThresholdMs: number;
  readonly slowDbQueryThresholdMs: number;
  readonly errorTracker: {
    readonly enabled: boolean;
    readonly dsn?: string;
    readonly tracesSampleRate: number;
  };
  readonly webhooks: {
    readonly slack: Readonly<Record<string, string>>;
    readonly googleChat: Readonly<Record<string, string>>;
    readonly zoom: Readonly<Record<string, string>>;
  };
  readonly cloud: {
    readonly project?: string;
    readonly location?: string;
    readonly serviceAccountEmail?: string;
    readonly tasksNotificationsQueue?: string;
    readonly taskProcessorQueue?: string;
  };
  readonly cacheUrl?: string;
  readonly aiApiKey?: string;
  readonly featureFlagsDebug: boolean;
  readonly mcp: { readonly host: string; readonly docsDir?: string; readonly evalGate?: string };
  /** The raw environment this config was read from, for plugins that read their own variables. */
  readonly env: Environment;
}

const optional = { default: undefined };

/**
 * Reads SPEC §8's variables from `environment` (default `process.env`). A wrong value, e.g.
 * `PORT=abc`, throws `CONFIG_INVALID_ENVIRONMENT` naming the variable.
 *
 * @example
 * const config = loadConfig({ ...process.env, PORT: "4000" });
 * config.port; // 4000
 */
export function loadConfig(environment: Environment = process.env): SvcConfig {
  const env = readEnvironment(environment, {
    NODE_ENV: str({ choices: ["development", "production", "test"], default: "development" }),
    PORT: port({ default: 3000 }),
    WEBSOCKET_PORT: port(optional),
    DB_URI: str(optional),
    DB_CONNECTION: str(optional),
    ENABLE_API_DOCS_UI: bool({ default: false }),
    DISABLE_LOG_ALL_REQUESTS: bool({ default: false }),
    SLOW_REQUEST_THRESHOLD_MS: milliseconds({ default: 3000 }),
    SLOW_DB_QUERY_THRESHOLD_MS: milliseconds({ default: 1000 }),
    USE_ERRORTRACKER_LOGGING: bool({ default: false }),
    ERRORTRACKER_DSN: str({
      default: undefined,
      requiredWhen: (cleaned) => cleaned.USE_ERRORTRACKER_LOGGING === true,
    }),
    ERRORTRACKER_TRACES_SAMPLE_RATE: numberInRange(0, 1)({ default: 0.1 }),
    SLACK_WEBHOOKS: urlMap({ default: {} }),
    GOOGLE_CHAT_WEBHOOKS: urlMap({ default: {} }),
    ZOOM_WEBHOOKS: urlMap({ default: {} }),
    CLOUD_PROJECT: str(optional),
    CLOUD_LOCATION: str(optional),
    CLOUD_SERVICE_ACCOUNT_EMAIL: str(optional),
    CLOUD_TASKS_NOTIFICATIONS_QUEUE: str(optional),
    CLOUD_TASK_PROCESSOR_QUEUE: str(optional),
    CACHE_URL: str(optional),
    AI_API_KEY: str(optional),
    FEATURE_FLAGS_DEBUG: bool({ default: true }),
    MCP_HOST: str(optional),
    HOST: str(optional),
    SVC_MCP_DOCS_DIR: str(optional),
    SVC_MCP_EVAL: str(optional),
  });
  const nodeEnv = env.NODE_ENV as NodeEnv;
  return Object.freeze({
    nodeEnv,
    isProduction: nodeEnv === "production",
    port: env.PORT,
    websocketPort: env.WEBSOCKET_PORT ?? env.PORT + 1,
    dbUri: nonEmpty(env.DB_URI) ?? nonEmpty(env.DB_CONNECTION),
    enableApiDocsUi: env.ENABLE_API_DOCS_UI,
    disableLogAllRequests: env.DISABLE_LOG_ALL_REQUESTS,
    slowRequestThresholdMs: env.SLOW_REQUEST_THRESHOLD_MS,
    slowDbQueryThresholdMs: env.SLOW_DB_QUERY_THRESHOLD_MS,
    errorTracker: {
      enabled: env.USE_ERRORTRACKER_LOGGING,
      dsn: nonEmpty(env.ERRORTRACKER_DSN),
      tracesSampleRate: env.ERRORTRACKER_TRACES_SAMPLE_RATE,
    },
    webhooks: { slack: env.SLACK_WEBHOOKS, googleChat: env.GOOGLE_CHAT_WEBHOOKS, zoom: env.ZOOM_WEBHOOKS },
    cloud: {
      project: env.CLOUD_PROJECT,
      location: env.CLOUD_LOCATION,
      serviceAccountEmail: env.CLOUD_SERVICE_ACCOUNT_EMAIL,
      tasksNotificationsQueue: env.CLOUD_TASKS_NOTIFICATIONS_QUEUE,
      taskProcessorQueue: env.CLOUD_TASK_PROCESSOR_QUEUE,
    },
    cacheUrl: nonEmpty(env.CACHE_URL),
    aiApiKey: nonEmpty(env.AI_API_KEY),
    featureFlagsDebug: env.FEATURE_FLAGS_DEBUG,
    mcp: { host: env.MCP_HOST ?? env.HOST ?? "0.0.0.0", docsDir: env.SVC_MCP_DOCS_DIR, evalGate: env.SVC_MCP_EVAL },
    env: Object.freeze({ ...environment }),
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
