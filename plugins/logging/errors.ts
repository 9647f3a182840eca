import { defineErrors } from "../../kernel/errors.js";

/** Errors of the logging plugin (codes `LOGGING_*`). */
export const LoggingErrors = defineErrors("LOGGING", {
  RESERVED_LABEL: {
    message: (key: string) => `Log label "${key}" is reserved for the framework; pick another name`,
  },
  INVALID_FEATURE_FLAG_CHECK: {
    message: () => "createFeatureFlaggedLogger needs an isEnabled function",
  },
});
