/** What a redacted value is replaced with. */
export const REDACTED = "[REDACTED]";

// Compared after lower-casing and dropping "-" and "_", so `api_key`, `X-API-Key` and `apiKey` match.
const SECRET_SUFFIXES = [
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "apikey",
  "authorization",
  "cookie",
  "privatekey",
  "credentials",
  "signature",
];
const SECRET_NAMES = new Set(["pwd", "pass", "otp", "pin", "cvv", "cvc", "auth", "jwt"]);
const MAX_DEPTH = 12;

/**
 * True for keys that look like they hold a secret: `password`, `newPassword`, `token`,
 * `refreshToken`, `authorization`, `apiKey`/`x-api-key`, `cookie`/`set-cookie`, `clientSecret`...
 * Correlation fields such as `sessionId` are not secrets.
 *
 * @example
 * isSecretKey("refresh_token"); // true
 * isSecretKey("email"); // false
 */
export function isSecretKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[-_]/g, "");
  return SECRET_NAMES.has(normalized) || SECRET_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}

/**
 * A copy of `value` with every secret-looking field replaced by `"[REDACTED]"`, at any depth and
 * inside arrays. Cycles and very deep structures are cut off rather than followed. Non-plain
 * objects (dates, buffers, class instances) are kept by reference; errors keep name and message.
 *
 * @example
 * redactSecrets({ email: "a@b.c", password: "hunter2", profile: { apiKey: "k" } });
 * // { email: "a@b.c", password: "[REDACTED]", profile: { apiKey: "[REDACTED]" } }
 */
export function redactSecrets<T>(value: T): T {
  return redact(value, 0, new WeakSet()) as T;
}

function redact(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[Circular]";
  if (depth >= MAX_DEPTH) return "[Truncated]";
  if (Array.isArray(value)) {
    seen.add(value);
    const copy = value.map((item) => redact(item, depth + 1, seen));
    seen.delete(value);
    return copy;
  }
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  seen.add(value);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = isSecretKey(key) && item !== undefined && item !== null ? REDACTED : redact(item, depth + 1, seen);
  }
  seen.delete(value);
  return copy;
}

/**
 * A URL (path and query) with secret-looking query parameters redacted, for logging request lines.
 *
 * @example
 * redactUrl("/reset?token=abc&email=x"); // "/reset?token=%5BREDACTED%5D&email=x"
 */
export function redactUrl(url: string): string {
  const mark = url.indexOf("?");
  if (mark === -1) return url;
  const params = new URLSearchParams(url.slice(mark + 1));
  let changed = false;
  for (const key of new Set(params.keys())) {
    if (isSecretKey(key)) {
      params.set(key, REDACTED);
      changed = true;
    }
  }
  return changed ? `${url.slice(0, mark)}?${params.toString()}` : url;
}
