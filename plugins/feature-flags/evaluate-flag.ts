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
  /**
   * Active now or at some time (its stored `publishedAt`): signed-in clients may have been given
   * its key, so its changes are announced to them — by every process, whatever it saw itself.
   */
  readonly published: boolean;
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

  // Every result a flag can produce is known up front, so each is built (and frozen) once and
  // evaluation allocates nothing; callers must treat results as read-only.
  const result = (value: boolean | string | null, reason: FlagEvaluation["reason"], variant?: string, ruleIndex?: number) =>
    Object.freeze<FlagEvaluation>(
      variant === undefined ? { value, reason } : ruleIndex === undefined ? { value, reason, variant } : { value, reason, variant, ruleIndex },
    );
  const rules = (flag.rules ?? []).flatMap((rule, index) => {
    const outcome: boolean | string | undefined = isVariant ? rule.variant : rule.enabled === true;
    // A rule without a result (bad data past validation) can never decide: leave it out.
    if (outcome === undefined) return [];
    const matches = isSegmentRule(rule)
      ? segmentPredicate(flag.key, rule.segment, segments, onSegmentProblem)
      : compileFieldRule(rule);
    const variant = isVariant ? (outcome as string) : outcome ? "on" : "off";
    return [{ matches, result: result(outcome, "TARGETING_MATCH", variant, index) }];
  });

  // Cumulative weight boundaries, computed once: bucket b picks the first variant with b < bound.
  let running = 0;
  const bounds = variants.map((variant) => ({ bound: (running += variant.weight), result: result(variant.key, "SPLIT", variant.key) }));
  const splitFallback = result(defaultVariant, "SPLIT", defaultVariant);
  const splitOn = result(true, "SPLIT", "on");
  const splitOff = result(false, "SPLIT", "off");
  const byDefault = isVariant ? result(defaultVariant, "DEFAULT", defaultVariant) : result(defaultVariant === "on", "DEFAULT", defaultVariant);
  const disabled = isVariant ? result(null, "DISABLED") : result(false, "DISABLED", "off");

  return {
    key: flag.key,
    type: flag.type,
    active,
    published: active || flag.publishedAt != null,
    variantKeys,
    defaultVariant,
    evaluate(user, userId) {
      if (!active) return disabled;
      for (let index = 0; index < rules.length; index++) {
        const rule = rules[index]!;
        if (rule.matches(user)) return rule.result;
      }
      if (userId === undefined || userId === "") return byDefault;
      const bucket = bucketOf(userId);
      if (!isVariant) return bucket < rollout ? splitOn : splitOff;
      for (let index = 0; index < bounds.length; index++) {
        if (bucket < bounds[index]!.bound) return bounds[index]!.result;
      }
      return splitFallback;
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
