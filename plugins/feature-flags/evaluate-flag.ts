import { flagBucketer } from "./flag-bucket.js";
import {
  isSegmentRule,
  type FlagDefinition,
  type FlagEvaluation,
  type FlagUser,
  type Segment,
} from "./flag-types.js";
import { compileFieldRule } from "./rule-match.js";

/** A flag compiled for fast repeated evaluation. */
export interface CompiledFlag {
  readonly key: string;
  readonly type: FlagDefinition["type"];
  /** False for disabled or archived flags: they are left out of per-user configuration. */
  readonly active: boolean;
  readonly variantKeys: readonly string[];
  readonly defaultVariant: string;
  evaluate(user: FlagUser, userId: string | undefined): FlagEvaluation;
}

/** Called when a rule names a segment that was never registered or whose function throws. */
export type SegmentProblem = (flagKey: string, segment: string, error?: unknown) => void;

/**
 * Compiles a flag into an evaluator implementing SPEC §2.3:
 * 1. boolean, disabled → false; 4. variant, disabled → null (archived flags likewise);
 * 3/6. first matching rule wins → its `enabled` (boolean) or `variant` (variant flags);
 * 2. boolean, no rule → `bucket < rolloutPercentage`, so raising the percentage never drops a user;
 * 5. variant, no rule → the first variant whose cumulative weight exceeds the bucket.
 * Without a user id there is no bucket, so the flag's `defaultVariant` applies (reason DEFAULT).
 *
 * @example
 * const flag = compileFlag(doc, { staff: (u) => u.admin === true });
 * flag.evaluate(user, user.id).value;
 */
export function compileFlag(
  flag: FlagDefinition,
  segments: Readonly<Record<string, Segment>> = {},
  onSegmentProblem: SegmentProblem = () => {},
): CompiledFlag {
  const isVariant = flag.type === "variant";
  const variants = flag.variants ?? [];
  const variantKeys = isVariant ? variants.map((variant) => variant.key) : ["on", "off"];
  const defaultVariant = flag.defaultVariant ?? (isVariant ? (variantKeys[0] ?? "") : "off");
  const active = flag.enabled === true && flag.archived !== true;
  const rollout = flag.rolloutPercentage ?? 100;
  const bucketOf = flagBucketer(flag.key);

  const rules = (flag.rules ?? []).map((rule) => {
    const matches = isSegmentRule(rule)
      ? segmentPredicate(flag.key, rule.segment, segments, onSegmentProblem)
      : compileFieldRule(rule);
    const result: boolean | string | undefined = isVariant ? rule.variant : rule.enabled === true;
    return { matches, result };
  });

  // Cumulative weight boundaries, computed once: bucket b picks the first variant with b < bound.
  let running = 0;
  const bounds = variants.map((variant) => ({ key: variant.key, bound: (running += variant.weight) }));

  const disabled: FlagEvaluation = isVariant
    ? { value: null, reason: "DISABLED" }
    : { value: false, reason: "DISABLED", variant: "off" };

  return {
    key: flag.key,
    type: flag.type,
    active,
    variantKeys,
    defaultVariant,
    evaluate(user, userId) {
      if (!active) return disabled;
      for (let index = 0; index < rules.length; index++) {
        const rule = rules[index]!;
        if (rule.result === undefined || !rule.matches(user)) continue;
        return isVariant
          ? { value: rule.result, reason: "TARGETING_MATCH", variant: rule.result as string, ruleIndex: index }
          : { value: rule.result, reason: "TARGETING_MATCH", variant: rule.result ? "on" : "off", ruleIndex: index };
      }
      if (userId === undefined || userId === "") {
        return isVariant
          ? { value: defaultVariant, reason: "DEFAULT", variant: defaultVariant }
          : { value: defaultVariant === "on", reason: "DEFAULT", variant: defaultVariant };
      }
      const bucket = bucketOf(userId);
      if (!isVariant) {
        const on = bucket < rollout;
        return { value: on, reason: "SPLIT", variant: on ? "on" : "off" };
      }
      const chosen = bounds.find((entry) => bucket < entry.bound)?.key ?? defaultVariant;
      return { value: chosen, reason: "SPLIT", variant: chosen };
    },
  };
}

function segmentPredicate(
  flagKey: string,
  name: string,
  segments: Readonly<Record<string, Segment>>,
  onProblem: SegmentProblem,
): (user: FlagUser) => boolean {
  const segment = Object.hasOwn(segments, name) ? segments[name] : undefined;
  if (!segment) {
    onProblem(flagKey, name);
    return () => false;
  }
  return (user) => {
    try {
      return segment(user) === true;
    } catch (error) {
      onProblem(flagKey, name, error);
      return false;
    }
  };
}

/**
 * The id the rollout hash uses: `id`, else `_id` (ObjectId or string), else `targetingKey`
 * (OpenFeature's evaluation context).
 */
export function flagUserId(user: FlagUser | undefined): string | undefined {
  if (!user) return undefined;
  for (const candidate of [user.id, user._id, user.targetingKey]) {
    if (typeof candidate === "string" && candidate !== "") return candidate;
    if (candidate !== null && typeof candidate === "object" && typeof (candidate as { toHexString?: unknown }).toHexString === "function") {
      return (candidate as { toHexString(): string }).toHexString();
    }
  }
  return undefined;
}
