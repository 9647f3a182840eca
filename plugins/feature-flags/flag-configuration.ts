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
    configuration[flag.key] = entryFor(flag, resolved.variant ?? flag.defaultVariant);
  }
  return configuration;
}

function entryFor(flag: CompiledFlag, variant: string): FlagConfigurationEntry {
  // fromEntries defines own properties: assigning would drop a variant named "__proto__".
  const variants: Record<string, boolean | string> =
    flag.type === "boolean" ? { on: true, off: false } : Object.fromEntries(flag.variantKeys.map((key) => [key, key]));
  return { variants, defaultVariant: variant, disabled: false };
}

/**
 * Serialized `"<key>":{entry}` fragments per (flag, resolved variant). A flag's entry can only take
 * as many forms as it has variants, so each is serialized once and reused for every user — the
 * configuration route then costs evaluation plus string concatenation.
 */
const fragments = new WeakMap<CompiledFlag, Map<string, string>>();

function fragmentFor(flag: CompiledFlag, variant: string): string {
  let byVariant = fragments.get(flag);
  if (!byVariant) {
    byVariant = new Map();
    fragments.set(flag, byVariant);
  }
  let fragment = byVariant.get(variant);
  if (fragment === undefined) {
    fragment = `${JSON.stringify(flag.key)}:${JSON.stringify(entryFor(flag, variant))}`;
    byVariant.set(variant, fragment);
  }
  return fragment;
}

/**
 * `flagConfigurationFor`, already serialized as the route's body `{"data": {...}}`: the same
 * content (`JSON.parse` of it deep-equals `{data: flagConfigurationFor(flags, user)}`), built from
 * cached per-variant fragments.
 *
 * @example
 * res.type("application/json").send(flagConfigurationJson(cache.flags(), req.user));
 */
export function flagConfigurationJson(flags: Iterable<CompiledFlag>, user: FlagUser): string {
  const userId = flagUserId(user);
  let body = "";
  for (const flag of flags) {
    if (!flag.active) continue;
    const resolved = flag.evaluate(user, userId);
    body += (body === "" ? "" : ",") + fragmentFor(flag, resolved.variant ?? flag.defaultVariant);
  }
  return `{"data":{${body}}}`;
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
