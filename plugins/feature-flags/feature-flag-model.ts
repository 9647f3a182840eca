import mongoose, { Schema, type HydratedDocument, type Model } from "mongoose";
import { defaultPlugins, type FindOneOrNoneStatics } from "../rest/index.js";
import { RULE_OPERATORS, type FlagDefinition, type FlagRule, type FlagVariant } from "./flag-types.js";

/** A stored feature flag (SPEC §2.3, plus `description`, `created`, `updated`, `deleted`). */
export interface FeatureFlagDocument extends FlagDefinition {
  name: string;
  description?: string;
  archived: boolean;
  defaultVariant: string;
  rolloutPercentage: number;
  rules: FlagRule[];
  variants: FlagVariant[];
  created?: Date;
  updated?: Date;
  deleted: boolean;
}

export type FeatureFlagModel = Model<FeatureFlagDocument> & FindOneOrNoneStatics<HydratedDocument<FeatureFlagDocument>>;

// Users fall into whole-percent buckets (0-99), so 0.5 % would reach 1 % of users and weights
// 33.33/33.33/33.34 would split 34/33/33: a fraction cannot mean what it says.
const wholePercent = { validator: Number.isInteger, message: "must be a whole number: users are bucketed in whole percents" };

// Flag and variant keys reach every signed-in user (flagConfiguration, live updates) and are
// hashed on each evaluation: an identifier, not a text.
const KEY_MAX_LENGTH = 100;
// Every evaluation walks a flag's rules in order, and the list goes out with the flag: room for
// real targeting, not for a user list (a segment is the place for that).
const MAX_RULES = 100;
const MAX_VARIANTS = 100;
const MAX_RULE_VALUES = 1000;
const MAX_TEXT = 1000;

const ruleSchema = new Schema(
  {
    field: { type: String, trim: true, maxlength: 200, description: "User field the rule reads, in dot notation (field rules)" },
    operator: { type: String, enum: RULE_OPERATORS, description: "Comparison of a field rule: eq, neq, in, nin, gt, lt, contains" },
    value: { type: Schema.Types.Mixed, description: "Value the user's field is compared with (field rules)" },
    segment: { type: String, trim: true, maxlength: KEY_MAX_LENGTH, description: "Name of a registered segment (segment rules)" },
    enabled: { type: Boolean, description: "Result of a boolean flag when the rule matches" },
    variant: { type: String, maxlength: KEY_MAX_LENGTH, description: "Result of a variant flag when the rule matches" },
  },
  { _id: false, strict: "throw" },
);

const variantSchema = new Schema(
  {
    key: { type: String, required: true, trim: true, maxlength: KEY_MAX_LENGTH, description: "Variant identifier returned by evaluation" },
    weight: { type: Number, required: true, min: 0, max: 100, validate: wholePercent, description: "Share of users (a whole number, 0-100) assigned this variant" },
  },
  { _id: false, strict: "throw" },
);

const schema = new Schema<FeatureFlagDocument>(
  {
    key: { type: String, required: true, trim: true, maxlength: KEY_MAX_LENGTH, match: /^[A-Za-z0-9][A-Za-z0-9._:-]*$/, description: "Flag identifier used in evaluation responses" },
    name: { type: String, required: true, trim: true, maxlength: 200, description: "Display name" },
    description: { type: String, maxlength: 2000, description: "What the flag controls" },
    type: { type: String, enum: ["boolean", "variant"], required: true, description: "boolean (on/off) or variant (one of several keys)" },
    enabled: { type: Boolean, default: false, description: "Whether the flag is evaluated for users at all" },
    archived: { type: Boolean, default: false, description: "Archived flags are excluded from evaluation" },
    defaultVariant: { type: String, description: "on/off for boolean flags, a variant key for variant flags; defaults to off / the first variant" },
    rolloutPercentage: { type: Number, min: 0, max: 100, default: 100, validate: wholePercent, description: "Share of users (a whole number, 0-100) a boolean flag is on for when no rule matches" },
    rules: { type: [ruleSchema], default: [], description: "Targeting rules, evaluated in order; the first match wins" },
    variants: { type: [variantSchema], default: [], description: "Variants of a variant flag with weights summing to 100" },
    publishedAt: {
      type: Date,
      readOnly: true,
      description: "When the flag was first active (enabled, not archived), set by the server: from then on its changes are announced to signed-in clients",
    },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(defaultPlugins);
// Keys are unique among live flags; a soft-deleted flag frees its key for reuse.
schema.index({ key: 1 }, { unique: true, partialFilterExpression: { deleted: false } });

// Once a flag is active, clients may be told its key (flagConfiguration lists it): stored, so
// every process of the app — and a restarted one — announces its later changes too.
schema.pre("save", function markPublished(this: HydratedDocument<FeatureFlagDocument>) {
  if (this.enabled && !this.archived && !this.publishedAt) this.publishedAt = new Date();
});

schema.pre("validate", function fillDefaultsAndCheck(this: HydratedDocument<FeatureFlagDocument>) {
  // Request validation refuses a null list; with it turned off (or a direct write) null still
  // must not crash the checks below.
  for (const path of ["rules", "variants"] as const) {
    if (!Array.isArray(this[path])) {
      this.invalidate(path, "must be an array");
      return;
    }
  }
  if (this.rules.length > MAX_RULES) this.invalidate("rules", `at most ${MAX_RULES} rules (a long list of users belongs in a segment)`);
  if (this.variants.length > MAX_VARIANTS) this.invalidate("variants", `at most ${MAX_VARIANTS} variants`);
  const variantKeys = this.variants.map((variant) => variant.key);
  if (this.defaultVariant === undefined || this.defaultVariant === null || this.defaultVariant === "") {
    this.defaultVariant = this.type === "variant" ? (variantKeys[0] ?? "") : "off";
  }
  const invalid = (path: string, message: string) => this.invalidate(path, message);
  if (this.type === "boolean") {
    if (this.defaultVariant !== "on" && this.defaultVariant !== "off") invalid("defaultVariant", "must be on or off for a boolean flag");
    if (this.variants.length > 0) invalid("variants", "a boolean flag has no variants");
  } else {
    if (variantKeys.length === 0) invalid("variants", "a variant flag needs at least one variant");
    if (new Set(variantKeys).size !== variantKeys.length) invalid("variants", "variant keys must be unique");
    const total = this.variants.reduce((sum, variant) => sum + variant.weight, 0);
    if (variantKeys.length > 0 && Math.abs(total - 100) > 1e-9) invalid("variants", `variant weights must sum to 100 (they sum to ${total})`);
    if (!variantKeys.includes(this.defaultVariant)) invalid("defaultVariant", "must be one of the variant keys");
  }
  this.rules.forEach((rule, index) => {
    const path = `rules.${index}`;
    const isSegment = typeof (rule as { segment?: unknown }).segment === "string";
    const field = rule as { field?: string; operator?: string; value?: unknown };
    if (isSegment === (field.field !== undefined || field.operator !== undefined)) {
      invalid(path, "a rule has either field and operator (a field rule) or segment (a segment rule)");
    } else if (!isSegment && (!field.field || !field.operator)) {
      invalid(path, "a field rule needs field and operator");
    } else if (!isSegment && (field.operator === "in" || field.operator === "nin") && !Array.isArray(field.value)) {
      invalid(`${path}.value`, `${field.operator} compares against an array`);
    } else if (!isSegment && !boundedValue(field.value)) {
      invalid(`${path}.value`, `at most ${MAX_RULE_VALUES} values of at most ${MAX_TEXT} characters each (a long list of users belongs in a segment)`);
    }
    if (this.type === "boolean" && typeof rule.enabled !== "boolean") invalid(`${path}.enabled`, "a boolean flag's rule needs enabled: true or false");
    if (this.type === "variant" && (rule.variant === undefined || !variantKeys.includes(rule.variant))) {
      invalid(`${path}.variant`, "a variant flag's rule needs a variant that exists");
    }
  });
});

/** A rule value within bounds: a scalar, or a flat array of at most `MAX_RULE_VALUES` scalars; texts at most `MAX_TEXT` long. */
function boundedValue(value: unknown): boolean {
  const scalar = (item: unknown) => (typeof item === "string" ? item.length <= MAX_TEXT : item === null || typeof item !== "object" || item instanceof Date);
  return Array.isArray(value) ? value.length <= MAX_RULE_VALUES && value.every(scalar) : scalar(value);
}

/**
 * The `FeatureFlag` model, on mongoose's default connection (created once per process).
 *
 * @example
 * const FeatureFlag = featureFlagModel();
 * await FeatureFlag.create({ key: "new-checkout", name: "New checkout", type: "boolean", enabled: true, rolloutPercentage: 10 });
 */
export function featureFlagModel(): FeatureFlagModel {
  return (mongoose.models.FeatureFlag ?? mongoose.model<FeatureFlagDocument>("FeatureFlag", schema)) as FeatureFlagModel;
}
