/** Operators of a field rule (SPEC §2.3). */
export const RULE_OPERATORS = ["eq", "neq", "in", "nin", "gt", "lt", "contains"] as const;
export type RuleOperator = (typeof RULE_OPERATORS)[number];

/** Matches when the user's value at `field` (dot path) satisfies `operator` against `value`. */
export interface FieldRule {
  field: string;
  operator: RuleOperator;
  value: unknown;
  /** The result of a boolean flag when this rule matches. */
  enabled?: boolean;
  /** The result of a variant flag when this rule matches. */
  variant?: string;
}

/** Matches when the registered segment function returns true for the user. */
export interface SegmentRule {
  segment: string;
  enabled?: boolean;
  variant?: string;
}

export type FlagRule = FieldRule | SegmentRule;

export interface FlagVariant {
  key: string;
  /** Share of users (0–100); a flag's weights sum to 100. */
  weight: number;
}

/** The fields evaluation reads from a flag document. */
export interface FlagDefinition {
  key: string;
  type: "boolean" | "variant";
  enabled: boolean;
  archived?: boolean;
  defaultVariant?: string;
  /** Share of users (0–100) a boolean flag is on for when no rule matches. */
  rolloutPercentage?: number;
  rules?: readonly FlagRule[];
  variants?: readonly FlagVariant[];
  /** When the flag was first active (set by the server): from then on clients may know its key. */
  publishedAt?: Date;
}

/** A named predicate over users, registered when the flag plugin is constructed. */
export type Segment = (user: FlagUser) => boolean;

/** Whatever describes the user being evaluated; `id` (or `_id`) feeds the rollout hash. */
export type FlagUser = Readonly<Record<string, unknown>>;

/** Why a flag resolved the way it did (OpenFeature's standard reasons). */
export type EvaluationReason = "TARGETING_MATCH" | "SPLIT" | "DISABLED" | "DEFAULT";

/** The outcome of evaluating a flag for a user (shared and frozen: never mutate it). */
export interface FlagEvaluation {
  /** Boolean flags: true/false. Variant flags: the variant key, or null when disabled. */
  readonly value: boolean | string | null;
  readonly reason: EvaluationReason;
  /** The variant key the value corresponds to (`on`/`off` for boolean flags). */
  readonly variant?: string;
  /** Index of the matching rule, for TARGETING_MATCH. */
  readonly ruleIndex?: number;
}

export function isSegmentRule(rule: FlagRule): rule is SegmentRule {
  return typeof (rule as SegmentRule).segment === "string";
}
