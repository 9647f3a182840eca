import { bool, listenPort, readEnvironment, str, type Environment } from "./environment.js";

export type NodeEnv = "development" | "production" | "test";

/**
 * What the kernel and the hosts read from the environment, parsed once with their defaults. Each
 * plugin owns its own variables (logging, database, auth, notifiers, feature flags, ...) and reads
 * them from `config.env` with `readEnvironment` in its `register()`, so a bad value still fails the
 * app at start and every variable is read and reported the same way.
 */
export interface SvcConfig {
  readonly nodeEnv: NodeEnv;
  readonly isProduction: boolean;
  /** `PORT`, default 3000; 0 listens on any free port (the start-up line says which). */
  readonly port: number;
  /** `WEBSOCKET_PORT`: a separate port for the socket server; undefined shares the HTTP server. */
  readonly websocketPort?: number;
  /**
   * `HOST`: the interface servers listen on. Unset, it is `127.0.0.1` (this machine only) outside
   * production, and undefined — all interfaces — in production.
   */
  readonly host?: string;
  /** `ENABLE_API_DOCS_UI`, default false: serve the interactive API docs at `/docs`. */
  readonly enableApiDocsUi: boolean;
  /** The raw environment this config was read from, for plugins that read their own variables. */
  readonly env: Environment;
}

/**
 * Reads the kernel's and hosts' variables from `environment` (default `process.env`). A wrong
 * value, e.g. `PORT=abc`, throws `CONFIG_INVALID_ENVIRONMENT` naming the variable.
 *
 * @example
 * const config = loadConfig({ ...process.env, PORT: "4000" });
 * config.port; // 4000
 */
export function loadConfig(environment: Environment = process.env): SvcConfig {
  const env = readEnvironment(environment, {
    NODE_ENV: str({ choices: ["development", "production", "test"], default: "development" }),
    PORT: listenPort({ default: 3000 }),
    WEBSOCKET_PORT: listenPort({ default: undefined }),
    HOST: str({ default: undefined }),
    ENABLE_API_DOCS_UI: bool({ default: false }),
  });
  const nodeEnv = env.NODE_ENV as NodeEnv;
  const isProduction = nodeEnv === "production";
  // A development server (demo data, debug settings, no TLS) should not be reachable from the
  // network by default; production, behind a load balancer or container network, needs every interface.
  const host = env.HOST?.trim() ? env.HOST.trim() : isProduction ? undefined : "127.0.0.1";
  return Object.freeze({
    nodeEnv,
    isProduction,
    port: env.PORT,
    websocketPort: env.WEBSOCKET_PORT,
    host,
    enableApiDocsUi: env.ENABLE_API_DOCS_UI,
    env: Object.freeze({ ...environment }),
  });
}
