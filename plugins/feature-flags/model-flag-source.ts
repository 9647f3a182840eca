import type { FlagSource } from "./db-feature-flag-provider.js";
import { compileFlag, type SegmentProblem } from "./evaluate-flag.js";
import { featureFlagModel, type FeatureFlagDocument, type FeatureFlagModel } from "./feature-flag-model.js";
import type { Segment } from "./flag-types.js";

/** Options of `modelFlagSource`: the segments rules may name, as the plugin's `segments`. */
export interface ModelFlagSourceOptions {
  segments?: Readonly<Record<string, Segment>>;
  /** Told when a rule names an unregistered segment or one that throws (default: nothing). */
  onSegmentProblem?: SegmentProblem;
}

/**
 * A `FlagSource` reading each flag from the database when asked, through the model's
 * `findOneOrNone` (SPEC §2.3): for a script, a worker or an app without the plugin, where no
 * cache runs. Each evaluation is a query, and sees every write made before it. Deleted flags are
 * not found; two live flags with one key (the unique index missing) reject with the 500
 * `REST_SEVERAL_MATCHES`, which OpenFeature clients answer with your default (that error code).
 *
 * @example
 * await OpenFeature.setProviderAndWait("feature-flags", new DbFeatureFlagProvider(modelFlagSource()));
 * await OpenFeature.getClient("feature-flags").getBooleanValue("new-checkout", false, { targetingKey: userId });
 */
export function modelFlagSource(model: FeatureFlagModel = featureFlagModel(), options: ModelFlagSourceOptions = {}): FlagSource {
  return {
    async findFlag(key) {
      // A key is a string; anything else (an operator object from untyped input) names no flag.
      if (typeof key !== "string") return null;
      const record = await model.findOneOrNone({ key, deleted: false });
      return record ? compileFlag(record.toObject<FeatureFlagDocument>(), options.segments, options.onSegmentProblem) : null;
    },
  };
}
