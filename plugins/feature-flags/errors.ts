import { defineErrors } from "../../kernel/errors.js";

/**
 * The feature-flag plugin's errors. Its routes answer "sign in required" and "forbidden" with
 * `HttpErrors` and bad flag bodies with `ValidationErrors`, like every route; the entries here
 * are the mistakes only this plugin can report, all made while building or starting an app.
 *
 * @example
 * FeatureFlagErrors.NOT_STARTED().code; // "FEATURE_FLAGS_NOT_STARTED"
 */
export const FeatureFlagErrors = defineErrors("FEATURE_FLAGS", {
  /** `FLAG_CACHE` was resolved before the plugin started (or after it stopped). */
  NOT_STARTED: { message: () => "The feature-flags plugin has not started: resolve FLAG_CACHE in a start() that depends on it, or per request" },
  /** `basePath` must be a path like `/feature-flags`. */
  INVALID_BASE_PATH: { message: (path: string) => `basePath must start with "/" and not end with one, got "${path}"` },
  /** Live updates go to signed-in sockets only, so the app needs an `AUTHENTICATOR` (the auth plugin). */
  LIVE_UPDATES_NEED_AUTH: {
    message: () => "Feature-flag liveUpdates reach signed-in sockets only, and this app has no AUTHENTICATOR: register the auth plugin too",
  },
});
