import { bool, readEnvironment, type Environment } from "../../kernel/environment.js";

/** The feature-flag variables, parsed and checked. */
export interface FeatureFlagsEnvironment {
  /** `FEATURE_FLAGS_DEBUG`, default true: evaluations are logged at `debug` level. */
  readonly debug: boolean;
}

/**
 * Reads the feature-flag plugin's variables from an environment map (an app's `ctx.config.env`).
 * A malformed value, e.g. `FEATURE_FLAGS_DEBUG=maybe`, throws `CONFIG_INVALID_ENVIRONMENT`
 * naming the variable, so the app fails at start.
 *
 * @example
 * readFeatureFlagsEnvironment(ctx.config.env).debug; // true unless FEATURE_FLAGS_DEBUG=false
 */
export function readFeatureFlagsEnvironment(environment: Environment): FeatureFlagsEnvironment {
  const env = readEnvironment(environment, { FEATURE_FLAGS_DEBUG: bool({ default: true }) });
  return { debug: env.FEATURE_FLAGS_DEBUG };
}
