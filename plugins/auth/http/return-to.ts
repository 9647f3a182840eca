import { AuthErrors } from "../errors.js";

/**
 * Normalises configured return origins (`https://app.example.com`, no path) and refuses
 * anything that is not a bare http(s) origin, so a typo cannot widen the allowlist.
 *
 * @example
 * normalizeOrigins(["https://app.example.com/"]); // ["https://app.example.com"]
 */
export function normalizeOrigins(origins: readonly string[]): string[] {
  return origins.map((origin) => {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw AuthErrors.INVALID_RETURN_ORIGIN(origin);
    }
    const bare = `${url.protocol}//${url.host}`;
    if (!/^https?:$/.test(url.protocol) || url.username || url.password || (url.pathname !== "/" && url.pathname !== "") || url.search || url.hash) {
      throw AuthErrors.INVALID_RETURN_ORIGIN(origin);
    }
    return bare;
  });
}

/**
 * Checks a client-supplied `returnTo` against the allowlisted origins and returns the URL to
 * redirect to. Only absolute http(s) URLs whose origin equals an allowlisted one pass; relative
 * and protocol-relative URLs (`//evil.com`), backslash tricks, credentials (`https://app@evil`),
 * `javascript:` and control characters are refused with 400 `AUTH_RETURN_TO_NOT_ALLOWED`.
 *
 * @example
 * allowedReturnTo("https://app.example.com/after", ["https://app.example.com"]); // "https://app.example.com/after"
 * allowedReturnTo("https://evil.example/after", ["https://app.example.com"]);    // throws
 */
export function allowedReturnTo(returnTo: unknown, allowedOrigins: readonly string[]): string {
  if (typeof returnTo !== "string" || returnTo.length === 0 || returnTo.length > 2048) throw AuthErrors.RETURN_TO_NOT_ALLOWED();
  // Browsers treat "\" like "/" and strip tabs/newlines, so URL parsers disagree on such input.
  if (/[\\\u0000-\u001f\u007f\s]/.test(returnTo)) throw AuthErrors.RETURN_TO_NOT_ALLOWED();
  let url: URL;
  try {
    url = new URL(returnTo);
  } catch {
    throw AuthErrors.RETURN_TO_NOT_ALLOWED();
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password) throw AuthErrors.RETURN_TO_NOT_ALLOWED();
  if (!allowedOrigins.includes(url.origin)) throw AuthErrors.RETURN_TO_NOT_ALLOWED();
  return url.toString();
}
