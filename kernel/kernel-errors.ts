import { defineErrors } from "./errors.js";

/**
 * The kernel's programmer and start-up errors (plugin registration, dependency order, lifecycle).
 *
 * @example
 * hasErrorCode(error, KernelErrors.PHASE_TIMEOUT); // a plugin did not finish start in time
 */
export const KernelErrors = defineErrors("KERNEL", {
  DUPLICATE_PLUGIN: { message: (name: string) => `Plugin "${name}" is registered twice` },
  INVALID_PLUGIN_NAME: {
    message: (name: string) => `Plugin name "${name}" must be kebab-case (e.g. "feature-flags")`,
  },
  PHASE_TIMEOUT: {
    message: (phase: string, name: string, ms: number) => `Plugin "${name}" did not finish ${phase} within ${ms} ms`,
  },
  PHASE_FAILED: {
    message: (phase: string, name: string, reason: string) => `Plugin "${name}" failed to ${phase}: ${reason}`,
  },
  ASYNC_REGISTER: {
    message: (name: string) =>
      `Plugin "${name}" returned a promise from register(): register must be synchronous (bindings only); do I/O in start()`,
  },
  MISSING_DEPENDENCY: {
    message: (plugin: string, dependency: string) => `Plugin "${plugin}" depends on "${dependency}", which is not registered`,
  },
  DEPENDENCY_CYCLE: { message: (cycle: string) => `Plugin dependencies form a cycle: ${cycle}` },
  WRONG_STATE: { message: (action: string, state: string) => `Cannot ${action} while the kernel is ${state}` },
});
