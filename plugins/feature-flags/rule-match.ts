import type { FieldRule } from "./flag-types.js";

/** Reads a dot path, pre-split into steps, from a user object; undefined when a step is missing. */
function readSteps(source: unknown, steps: readonly string[]): unknown {
  let current: unknown = source;
  for (const step of steps) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

type Scalar = string | number | boolean;

/**
 * Values rules compare: strings, finite numbers, booleans, and dates (as epoch ms, tagged so a
 * date never equals a number). ObjectIds compare as their hex string, since rules are written in
 * JSON. Anything else is not comparable and never matches.
 */
type Comparable = { kind: "string"; value: string } | { kind: "number"; value: number } | { kind: "boolean"; value: boolean } | { kind: "date"; value: number };

function comparable(value: unknown): Comparable | undefined {
  switch (typeof value) {
    case "string":
      return { kind: "string", value };
    case "number":
      return Number.isFinite(value) ? { kind: "number", value } : undefined;
    case "boolean":
      return { kind: "boolean", value };
    case "object":
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : { kind: "date", value: value.getTime() };
      if (value !== null && typeof (value as { toHexString?: unknown }).toHexString === "function") {
        return { kind: "string", value: (value as { toHexString(): string }).toHexString() };
      }
      return undefined;
    default:
      return undefined;
  }
}

function same(a: Comparable, b: Comparable): boolean {
  return a.kind === b.kind && a.value === b.value;
}

/** A rule value given as an ISO date string is compared as a date when the user value is one. */
function coerceRuleValue(rule: unknown, user: Comparable): Comparable | undefined {
  const value = comparable(rule);
  if (user.kind === "date" && value?.kind === "string") {
    const time = Date.parse(value.value);
    return Number.isNaN(time) ? undefined : { kind: "date", value: time };
  }
  return value;
}

/**
 * Compiles a field rule into a predicate over users. Type mismatches simply do not match (a
 * string `"5"` never equals the number 5), and a missing field matches no operator — not even
 * `neq`/`nin` — so a rule never targets users by the absence of data.
 *
 * @example
 * const isPro = compileFieldRule({ field: "profile.plan", operator: "in", value: ["pro", "team"] });
 * isPro(user); // boolean
 */
export function compileFieldRule(rule: Pick<FieldRule, "field" | "operator" | "value">): (user: unknown) => boolean {
  const steps = rule.field.split(".");
  const read = (user: unknown) => readSteps(user, steps);
  switch (rule.operator) {
    case "contains":
      return (user) => contains(read(user), rule.value);
    case "eq":
    case "neq": {
      const wantEqual = rule.operator === "eq";
      return (user) => {
        const actual = comparable(read(user));
        if (!actual) return false;
        const expected = coerceRuleValue(rule.value, actual);
        if (!expected || expected.kind !== actual.kind) return false;
        return (expected.value === actual.value) === wantEqual;
      };
    }
    case "in":
    case "nin": {
      if (!Array.isArray(rule.value)) return () => false;
      const values: readonly unknown[] = rule.value;
      const wantFound = rule.operator === "in";
      return (user) => {
        const actual = comparable(read(user));
        if (!actual) return false;
        const found = values.some((entry) => {
          const candidate = coerceRuleValue(entry, actual);
          return candidate !== undefined && same(candidate, actual);
        });
        return found === wantFound;
      };
    }
    case "gt":
    case "lt": {
      const greater = rule.operator === "gt";
      return (user) => {
        const actual = comparable(read(user));
        if (!actual || actual.kind === "boolean") return false;
        const expected = coerceRuleValue(rule.value, actual);
        if (!expected || expected.kind !== actual.kind) return false;
        const a = actual.value as Exclude<Scalar, boolean>;
        const b = expected.value as Exclude<Scalar, boolean>;
        return greater ? a > b : a < b;
      };
    }
    default:
      // An operator outside the seven (bad data that slipped past validation) never matches.
      return () => false;
  }
}

/** `contains`: substring for strings, membership (same type) for arrays. */
function contains(raw: unknown, expected: unknown): boolean {
  if (typeof raw === "string") return typeof expected === "string" && raw.includes(expected);
  if (!Array.isArray(raw)) return false;
  const needle = comparable(expected);
  if (!needle) return false;
  return raw.some((item) => {
    const candidate = comparable(item);
    return candidate !== undefined && same(candidate, needle);
  });
}
