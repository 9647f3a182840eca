import { flagUserId, type CompiledFlag } from "./evaluate-flag.js";
import type { FlagUser } from "./flag-types.js";

/** One entry of the flag configuration (the shape OpenFeature's in-memory provider reads). */
export interface FlagConfigurationEntry {
  variants: Record<string, boolean | string>;
  defaultVariant: string;
  disabled: boolean;
}

/** `GET {basePath}/flagConfiguration`'s `data`: flag key → entry (SPEC §2.4). */
export type FlagConfiguration = Record<string, FlagConfigurationEntry>;

/** The legacy `GET {basePath}/evaluate` map: flag key → value. */
export type LegacyEvaluation = Record<string, boolean | string | null>;

/**
 * Builds the per-user flag configuration: active flags only (disabled and archived ones are
 * omitted), each with its variants and `defaultVariant` set to the variant resolved for this
 * user, so a client-side OpenFeature in-memory provider resolves exactly what the server did.
 *
 * @example
 * flagConfigurationFor(cache.flags(), req.user); // { "new-checkout": { variants: { on: true, off: false }, defaultVariant: "on", disabled: false } }
 */
export function flagConfigurationFor(flags: Iterable<CompiledFlag>, user: FlagUser): FlagConfiguration {
  const userId = flagUserId(user);
  const configuration: FlagConfiguration = {};
  for (const flag of flags) {
    if (!flag.active) continue;
    const resolved = flag.evaluate(user, userId);
    const variants: Record<string, boolean | string> = {};
    if (flag.type === "boolean") {
      variants.on = true;
      variants.off = false;
    } else {
      for (const key of flag.variantKeys) variants[key] = key;
    }
    configuration[flag.key] = { variants, defaultVariant: resolved.variant ?? flag.defaultVariant, disabled: false };
  }
  return configuration;
}

/**
 * The deprecated evaluation map: each active flag's value for this user.
 *
 * @example
 * legacyEvaluationFor(cache.flags(), req.user); // { "new-checkout": true, "theme": "dark" }
 */
export function legacyEvaluationFor(flags: Iterable<CompiledFlag>, user: FlagUser): LegacyEvaluation {
  const userId = flagUserId(user);
  const values: LegacyEvaluation = {};
  for (const flag of flags) {
    if (flag.active) values[flag.key] = flag.evaluate(user, userId).value;
  }
  return values;
}
