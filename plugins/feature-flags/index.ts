// The `svc/feature-flags` package entry: the plugin's public surface. Other plugins import the
// feature flags only through this file.
export { featureFlagsPlugin, type FeatureFlagsOptions } from "./feature-flags-plugin.js";
export { FeatureFlagErrors } from "./errors.js";
export { readFeatureFlagsEnvironment, type FeatureFlagsEnvironment } from "./feature-flags-environment.js";
export { featureFlagModel, type FeatureFlagDocument, type FeatureFlagModel } from "./feature-flag-model.js";
export { DbFeatureFlagProvider, type FlagSource, type EvaluationObserver } from "./db-feature-flag-provider.js";
export { FLAG_CACHE, FlagCache, type FlagCacheOptions } from "./flag-cache.js";
export { modelFlagSource, type ModelFlagSourceOptions } from "./model-flag-source.js";
export { compileFlag, flagUserId, type CompiledFlag, type SegmentProblem } from "./evaluate-flag.js";
export { flagBucket } from "./flag-bucket.js";
export { compileFieldRule } from "./rule-match.js";
export { flagConfigurationFor, flagConfigurationJson, legacyEvaluationFor, type FlagConfiguration, type FlagConfigurationEntry, type LegacyEvaluation } from "./flag-configuration.js";
export { featureFlagAdminConfig, type FeatureFlagAdminConfig } from "./admin-config.js";
export type { LiveUpdatesOptions } from "./live-updates.js";
export {
  RULE_OPERATORS,
  type EvaluationReason,
  type FieldRule,
  type FlagDefinition,
  type FlagEvaluation,
  type FlagRule,
  type FlagUser,
  type FlagVariant,
  type RuleOperator,
  type Segment,
  type SegmentRule,
} from "./flag-types.js";
