import type { FeatureFlagModel } from "./feature-flag-model.js";
import { featureFlagModel } from "./feature-flag-model.js";

/** SPEC §2.6's admin model configuration, as the admin plugin reads it. */
export interface FeatureFlagAdminConfig {
  readonly model: FeatureFlagModel;
  readonly routePath: string;
  readonly displayName: string;
  readonly listFields: readonly string[];
  readonly defaultSort: string;
}

/**
 * The pre-built admin configuration for feature flags (SPEC §2.6): display name `Feature
 * Flags`, route path `/feature-flags`, list fields `key, name, type, enabled, archived,
 * defaultVariant, created`.
 *
 * @example
 * adminPlugin({ models: [featureFlagAdminConfig(), ...] });
 */
export function featureFlagAdminConfig(): FeatureFlagAdminConfig {
  return {
    model: featureFlagModel(),
    routePath: "/feature-flags",
    displayName: "Feature Flags",
    listFields: ["key", "name", "type", "enabled", "archived", "defaultVariant", "created"],
    defaultSort: "-created",
  };
}
