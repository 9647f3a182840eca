/**
 * A browser's push subscription, as `web-push` takes it (declared here, not imported: this file's
 * declarations are published, and `@types/web-push` is not a dependency of apps).
 */
export interface WebPushSubscription {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

/**
 * The browsers' push services (Chrome and Edge on FCM, Firefox, Windows, Safari). A Web Push token
 * names the URL svc POSTs to, chosen by whoever registers it, so only these hosts are reached by
 * default: anything else (169.254.169.254, 127.0.0.1, an intranet name) would make svc a proxy.
 * `*.x` matches the subdomains of `x`, not `x` itself.
 */
export const DEFAULT_WEB_PUSH_HOSTS: readonly string[] = Object.freeze([
  "fcm.googleapis.com",
  "android.googleapis.com",
  "*.push.services.mozilla.com",
  "*.notify.windows.com",
  "*.push.apple.com",
]);

const EXPO_TOKEN = /^Expo(nent)?PushToken\[[^\]]+\]$/;

/**
 * Why `token` is not an Expo push token (`ExponentPushToken[...]` or `ExpoPushToken[...]`), or
 * undefined when it is one.
 *
 * @example
 * expoTokenProblem("ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"); // undefined
 */
export function expoTokenProblem(token: string): string | undefined {
  return EXPO_TOKEN.test(token) ? undefined : "An Expo push token looks like ExponentPushToken[...] or ExpoPushToken[...]";
}

/** Whether `host` (a URL's hostname) is one of `allowed`: exact hosts, or `*.suffix` for subdomains. */
function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase();
  return allowed.some((entry) => {
    const pattern = entry.toLowerCase();
    return pattern.startsWith("*.") ? name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1 : name === pattern;
  });
}

/**
 * Reads a Web Push token (the browser's `PushSubscription` as JSON): the subscription, or why it
 * is refused — not JSON, no `keys.p256dh` or `keys.auth`, an endpoint that is not `https:` or
 * whose host is not one of `allowedHosts`.
 *
 * @example
 * const { subscription, problem } = readWebPushToken(token, DEFAULT_WEB_PUSH_HOSTS);
 */
export function readWebPushToken(token: string, allowedHosts: readonly string[]): { subscription?: WebPushSubscription; problem?: string } {
  let parsed: { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } } | null;
  try {
    parsed = JSON.parse(token) as typeof parsed;
  } catch {
    parsed = null;
  }
  if (typeof parsed !== "object" || parsed === null || typeof parsed.endpoint !== "string") {
    return { problem: "A Web Push token is the browser's PushSubscription as JSON: {endpoint, keys: {p256dh, auth}}" };
  }
  if (typeof parsed.keys?.p256dh !== "string" || parsed.keys.p256dh === "" || typeof parsed.keys.auth !== "string" || parsed.keys.auth === "") {
    return { problem: "The Web Push subscription needs keys.p256dh and keys.auth" };
  }
  let endpoint: URL;
  try {
    endpoint = new URL(parsed.endpoint);
  } catch {
    return { problem: "The Web Push subscription's endpoint is not a URL" };
  }
  if (endpoint.protocol !== "https:") return { problem: "The Web Push subscription's endpoint must be an https: URL" };
  if (!hostAllowed(endpoint.hostname, allowedHosts)) {
    return { problem: `The Web Push subscription's endpoint host ${endpoint.hostname} is not a known push service` };
  }
  return { subscription: { endpoint: parsed.endpoint, keys: { p256dh: parsed.keys.p256dh, auth: parsed.keys.auth } } };
}
