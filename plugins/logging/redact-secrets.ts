/** What a redacted value is replaced with. */
export const REDACTED = "[REDACTED]";

// Names are split into words at camelCase humps, acronyms and any punctuation (`X-Api-Key`,
// `refresh_token`, `APIKey`, `client.secret`), lower-cased, then checked in three ways.

// 1. The joined words end with one of these: long enough that no ordinary word ends with them,
// so they also catch names written in one lower-case run (`accesstoken`, `newpassword`).
const SECRET_ENDINGS = [
  "password", "passwd", "passphrase", "passcode",
  "secret", "secrets",
  "token", "tokens",
  "authorization",
  "cookie", "cookies",
  "credential", "credentials",
  "signature",
  // Keys and codes only with a qualifier: `apiKey` and `authCode`, not `sortKey` or `errorCode`.
  "apikey", "apikeys", "privatekey", "secretkey", "accesskey", "signingkey", "encryptionkey", "masterkey", "sessionkey",
  "authcode", "authorizationcode", "verificationcode", "otpcode", "mfacode", "totpcode", "smscode", "resetcode",
  "recoverycode", "recoverycodes", "backupcode", "backupcodes", "confirmationcode", "securitycode", "logincode",
  "onetimecode", "codeverifier",
  // The auth plugin's GitHub linking code: live until the user who started the link redeems it.
  "linkcode",
];
// 2. The last word is one of these: short words, secret only as a whole word (`userPin`, `smsOtp`,
// `basic_auth`), never inside another (`spin`, `bypass`, `oauth`, `monkey`).
const SECRET_LAST_WORDS = new Set(["pwd", "pass", "pin", "otp", "totp", "hotp", "cvv", "cvc", "jwt", "auth"]);
// 3. These appear anywhere in the joined words: a password's hash, confirmation or repeat is as
// secret as the password (`passwordHash`, `password_confirmation`, `password2`).
const SECRET_ANYWHERE = ["password", "passwd", "passphrase"];
// Query strings carry a few more, by convention: OAuth's `code`, `key` (Google-style API keys), `sig`.
const SECRET_QUERY_NAMES = new Set(["code", "key", "sig"]);
const MAX_DEPTH = 12;

/**
 * True for keys that look like they hold a secret, in any spelling (camelCase, snake_case,
 * kebab-case, header case): `password`, `newPassword`, `passwordHash`, `token`, `accessToken`,
 * `refresh_token`, `idToken`, `clientSecret`, `apiKey`/`X-Api-Key`, `privateKey`,
 * `Authorization`, `Cookie`/`Set-Cookie`, `credentials`, `signature`, `otp`, `pin`,
 * `verificationCode`, `codeVerifier`... Ordinary names that merely contain such a word are not:
 * `monkey`, `sortKey`, `errorCode`, `tokenCount`, `passengers`, and correlation fields such as
 * `sessionId`.
 *
 * @example
 * isSecretKey("refresh_token"); // true
 * isSecretKey("X-Api-Key"); // true
 * isSecretKey("monkey"); // false
 */
export function isSecretKey(key: string): boolean {
  const words = nameWords(key);
  if (words.length === 0) return false;
  const joined = words.join("");
  return (
    SECRET_ENDINGS.some((ending) => joined.endsWith(ending)) ||
    SECRET_LAST_WORDS.has(words[words.length - 1]!) ||
    SECRET_ANYWHERE.some((word) => joined.includes(word))
  );
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
 * A URL (path and query) with secret-looking query parameters redacted, for logging request lines:
 * every name `isSecretKey` matches, plus `code` (OAuth callbacks), `key` and `sig`.
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
    if (isSecretKey(key) || SECRET_QUERY_NAMES.has(key.toLowerCase())) {
      params.set(key, REDACTED);
      changed = true;
    }
  }
  return changed ? `${url.slice(0, mark)}?${params.toString()}` : url;
}

// "X-APIKey_id" → ["x", "api", "key", "id"]
function nameWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}
