import type { AdminModelConfig } from "../../contracts/admin-model-config.js";
import { featureFlagModel, type FeatureFlagModel } from "./feature-flag-model.js";

/** The feature flags' admin configuration: the one admin model-config type, for the flag model. */
export type FeatureFlagAdminConfig = AdminModelConfig<FeatureFlagModel>;

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
