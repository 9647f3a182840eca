import type { SvcConfig } from "../../kernel/config.js";
import { isSecretKey, REDACTED, redactSecrets } from "../logging/index.js";
import type { ConfigurationView } from "./admin-api-shapes.js";

/** The variables svc and its plugins read (SPEC §5, §7's environment table). */
const SVC_VARIABLES = [
  "NODE_ENV", "PORT", "HOST", "WEBSOCKET_PORT", "ENABLE_API_DOCS_UI",
  "DB_URI", "DB_CONNECTION",
  "AUTH_PROVIDER", "TOKEN_SECRET", "TOKEN_ISSUER", "TOKEN_AUDIENCE", "REFRESH_TOKEN_SECRET", "SESSION_SECRET", "TOKEN_EXPIRES_IN", "REFRESH_TOKEN_EXPIRES_IN",
  "SIGNUP_DISABLED", "SESSION_AUTH_SECRET", "SESSION_AUTH_URL",
  "USE_ERRORTRACKER_LOGGING", "ERRORTRACKER_DSN", "ERRORTRACKER_TRACES_SAMPLE_RATE", "DISABLE_LOG_ALL_REQUESTS", "LOG_LEVEL",
  "SLOW_REQUEST_THRESHOLD_MS", "SLOW_DB_QUERY_THRESHOLD_MS",
  "CACHE_URL", "AI_API_KEY", "FEATURE_FLAGS_DEBUG", "WEBHOOK_SECRET", "MAIL_ADAPTER_API_KEY",
];

/**
 * The app's effective configuration with every secret redacted: variables whose names look secret
 * (`isSecretKey`: `TOKEN_SECRET`, `AI_API_KEY`...) show `[REDACTED]`, credentials inside URLs
 * (`mongodb://user:pass@host`, a DSN's key, `?api_key=`) and connection strings (`password=`)
 * are masked, so are secret fields of JSON values, and any value that contains a secret
 * variable's value is redacted whole — so no secret leaves, whatever it is called.
 *
 * @example
 * configurationView(ctx.config, ["APP_REGION"]).environment.TOKEN_SECRET; // "[REDACTED]"
 */
export function configurationView(config: SvcConfig, extraKeys: readonly string[] = []): ConfigurationView {
  const env = config.env;
  const names = [...new Set([...SVC_VARIABLES, ...extraKeys])].filter((name) => typeof env[name] === "string" && env[name] !== "");
  const shown = redactSecrets(Object.fromEntries(names.map((name) => [name, env[name] as string]))) as Record<string, string>;
  // Secret values from anywhere in the environment, so one copied into an innocent name is caught too.
  const secrets = Object.entries(env)
    .filter(([name, value]) => isSecretKey(name) && typeof value === "string" && value.length >= 4)
    .map(([, value]) => value as string);
  const environment: Record<string, string> = {};
  for (const name of names) {
    const value = shown[name]!;
    if (value === REDACTED) {
      environment[name] = REDACTED;
      continue;
    }
    const masked = maskSecretPairs(maskUrlCredentials(redactJson(value)));
    environment[name] = secrets.some((secret) => masked.includes(secret)) ? REDACTED : masked;
  }
  return {
    nodeEnv: config.nodeEnv,
    isProduction: config.isProduction,
    port: config.port,
    ...(config.host !== undefined ? { host: config.host } : {}),
    ...(config.websocketPort !== undefined ? { websocketPort: config.websocketPort } : {}),
    enableApiDocsUi: config.enableApiDocsUi,
    environment,
  };
}

/**
 * `scheme://user:pass@host` → `scheme://****@host`; a value that is not a URL with credentials is
 * kept. Up to the last `@` before the query when what precedes it is `user:pass` or has no `/`:
 * a password may hold an unescaped `@` or `/` (base64), while `https://registry/@scope` has none.
 */
function maskUrlCredentials(value: string): string {
  const url = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^?#]*)([\s\S]*)$/.exec(value);
  if (!url) return value;
  const [, scheme, rest, tail] = url as unknown as [string, string, string, string];
  const at = rest.lastIndexOf("@");
  const userinfo = rest.slice(0, at);
  if (at === -1 || (userinfo.includes("/") && !userinfo.includes(":"))) return value;
  return `${scheme}****${rest.slice(at)}${tail}`;
}

// `name=value` in a query string (`?api_key=...`, a driver's `tlsCertificateKeyFilePassword=`),
// a libpq or ADO connection string (`password='...'`, `Password=...;`).
const PAIR = /(^|[?&;\s])([^=&;#?\s]+)=('[^']*'|"[^"]*"|[^&;#\s]*)/g;
// Query strings carry a few more by convention (as in request logs): OAuth's `code`, `key`, `sig`.
const SECRET_PAIR_NAMES = new Set(["code", "key", "sig"]);

/** Masks the values of secret-looking `name=value` pairs: `?token=abc&db=x` → `?token=****&db=x`. */
function maskSecretPairs(value: string): string {
  return value.replace(PAIR, (pair, separator: string, name: string) =>
    isSecretKey(name) || SECRET_PAIR_NAMES.has(name.toLowerCase()) ? `${separator}${name}=****` : pair,
  );
}

/** A JSON object or array (`APP_CONFIG={"db":{"password":...}}`) with its secret-looking fields redacted, at any depth. */
function redactJson(value: string): string {
  if (!/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.stringify(redactSecrets(JSON.parse(value) as unknown));
  } catch {
    return value;
  }
}
