import { isIP } from "node:net";
import { bool, listenPort, makeValidator, readEnvironment, str, type Environment } from "./environment.js";

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
  /**
   * `TRUST_PROXY`, default false: express's `trust proxy` — `true`, a hop count, or a
   * comma-separated list of addresses, CIDR ranges and `loopback`/`linklocal`/`uniquelocal`. The
   * hosts' `trustProxy` option takes precedence.
   */
  readonly trustProxy: boolean | number | string;
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
    TRUST_PROXY: trustProxySetting({ default: false }),
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
    trustProxy: env.TRUST_PROXY,
    enableApiDocsUi: env.ENABLE_API_DOCS_UI,
    env: Object.freeze({ ...environment }),
  });
}

const PROXY_RANGE_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/**
 * `TRUST_PROXY` in the text forms express's `trust proxy` takes. Checked here, not left to express:
 * express reads `"1"` as an address and a misspelt range only fails at the first request.
 */
const trustProxySetting = makeValidator<boolean | number | string>((input: string) => {
  const value = input.trim();
  // Blank counts as unset, as for HOST.
  if (value === "" || value.toLowerCase() === "false") return false;
  if (value.toLowerCase() === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(",").map((entry) => entry.trim());
  const wrong = entries.filter((entry) => !isProxyEntry(entry));
  if (wrong.length > 0) {
    throw new Error(
      `must be true, false, a hop count, or a comma-separated list of addresses, CIDR ranges, loopback, ` +
        `linklocal or uniquelocal; ${wrong.map((entry) => `"${entry}"`).join(", ")} is none of these`,
    );
  }
  return entries.join(",");
});

/** A range name, an address, or an address with a prefix length (or, for IPv4, a netmask). */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const slash = entry.lastIndexOf("/");
  const version = isIP(slash < 0 ? entry : entry.slice(0, slash));
  if (version === 0) return false;
  if (slash < 0) return true;
  const range = entry.slice(slash + 1);
  const max = version === 4 ? 32 : 128;
  if (/^\d+$/.test(range)) return Number(range) >= 1 && Number(range) <= max;
  return version === 4 && isNetmask(range);
}

/** A dotted IPv4 netmask: ones, then zeros, at least one one (`255.255.255.0`). */
function isNetmask(text: string): boolean {
  if (isIP(text) !== 4) return false;
  const bits = text.split(".").reduce((sum, octet) => sum * 256 + Number(octet), 0);
  const zeros = 2 ** 32 - 1 - bits; // a valid mask's complement is 2^n - 1
  return bits !== 0 && (zeros & (zeros + 1)) === 0;
}
