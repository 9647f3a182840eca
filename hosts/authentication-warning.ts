import { AUTHENTICATION_MIDDLEWARE } from "../contracts/http.js";
import { MODEL_REGISTRY } from "../contracts/model-registry.js";
import type { SvcKernel } from "../kernel/kernel.js";
import { REST_METHODS, requiresAuthentication } from "../plugins/rest/index.js";

/**
 * Warns once when some route can only be used by a signed-in user but nothing authenticates
 * requests: every such request would answer 401, which looks like a bug in the app rather than
 * a missing `authPlugin(...)`.
 *
 * @example
 * await kernel.start();
 * warnWhenAuthenticationMissing(kernel);
 */
export function warnWhenAuthenticationMissing(kernel: SvcKernel): void {
  if (kernel.container.isBound(AUTHENTICATION_MIDDLEWARE)) return;
  const guarded = (kernel.container.tryResolve(MODEL_REGISTRY)?.list() ?? []).filter((entry) =>
    REST_METHODS.some((method) => requiresAuthentication(entry.permissions[method] ?? [], method)),
  );
  if (guarded.length === 0) return;
  kernel.pluginContext.logger.warn(
    `Routes need a signed-in user (${guarded.map((entry) => entry.path).join(", ")}) but no authentication ` +
      "is registered, so they will answer 401: register authPlugin({ userModel }) (or bind AUTHENTICATION_MIDDLEWARE).",
  );
}
