import type { FieldRule } from "./flag-types.js";

/**
 * Reads a dot path, pre-split into steps, from a user object; undefined when a step is missing.
 * Only own properties are user fields: every object inherits `constructor`, `toString` and
 * `__proto__`, so a rule on `constructor.name` read through the prototype would match every user.
 */
function readSteps(source: unknown, steps: readonly string[]): unknown {
  let current: unknown = source;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, step)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/**
 * The kinds of values rules compare. Dates compare by epoch milliseconds but are their own kind,
 * so a date never equals a number; ObjectIds compare as their hex string, since rules are written
 * in JSON. Anything else is not comparable and never matches. Kind and value are read by two
 * small functions rather than a tagged object so evaluation allocates nothing.
 */
const enum Kind {
  None,
  String,
  Number,
  Boolean,
  Date,
}

function kindOf(value: unknown): Kind {
  switch (typeof value) {
    case "string":
      return Kind.String;
    case "number":
      return Number.isFinite(value) ? Kind.Number : Kind.None;
    case "boolean":
      return Kind.Boolean;
    case "object":
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? Kind.None : Kind.Date;
      if (value !== null && typeof (value as { toHexString?: unknown }).toHexString === "function") return Kind.String;
      return Kind.None;
    default:
      return Kind.None;
  }
}

function primitiveOf(value: unknown, kind: Kind): string | number | boolean {
  if (kind === Kind.Date) return (value as Date).getTime();
  if (kind === Kind.String && typeof value !== "string") return (value as { toHexString(): string }).toHexString();
  return value as string | number | boolean;
}

/** A rule operand, normalised once at compile time; `asDate` is its reading as a date, if any. */
interface Operand {
  kind: Kind;
  value: string | number | boolean;
  asDate?: number;
}

function operand(value: unknown): Operand {
  const kind = kindOf(value);
  const normalised: Operand = { kind, value: kind === Kind.None ? "" : primitiveOf(value, kind) };
  // An ISO date string in a rule compares as a date against users' Date fields.
  if (kind === Kind.String) normalised.asDate = isoTime(normalised.value as string);
  return normalised;
}

// Date.parse alone also reads "5", "beta 2" or "March 7" as dates (in 2001), so a rule value that
// is no date at all would be compared with users' Date fields.
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * The epoch milliseconds of an ISO 8601 date (`2024-06-01`) or date-time, else undefined. A
 * date-time without an offset is read as UTC, like a bare date, so a rule means the same on every
 * server whatever its time zone (Date.parse would read it in the server's local time).
 */
function isoTime(text: string): number | undefined {
  const match = ISO_DATE.exec(text);
  if (!match) return undefined;
  const time = Date.parse(match[1] === undefined && text.includes("T") ? `${text}Z` : text);
  return Number.isNaN(time) ? undefined : time;
}

/** The operand's value comparable with a user value of `kind`, or undefined on type mismatch. */
function against(expected: Operand, kind: Kind): string | number | boolean | undefined {
  if (kind === Kind.Date) return expected.kind === Kind.Date ? expected.value : expected.asDate;
  return expected.kind === kind ? expected.value : undefined;
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
  switch (rule.operator) {
    case "contains": {
      const needle = operand(rule.value);
      return (user) => contains(readSteps(user, steps), needle);
    }
    case "eq":
    case "neq": {
      const expected = operand(rule.value);
      const wantEqual = rule.operator === "eq";
      return onComparable(steps, (actual, kind) => {
        const target = against(expected, kind);
        return target !== undefined && (actual === target) === wantEqual;
      });
    }
    case "in":
    case "nin": {
      if (!Array.isArray(rule.value)) return () => false;
      const candidates = rule.value.map(operand);
      const wantFound = rule.operator === "in";
      return onComparable(steps, (actual, kind) => {
        let found = false;
        for (let i = 0; i < candidates.length && !found; i++) found = against(candidates[i]!, kind) === actual;
        return found === wantFound;
      });
    }
    case "gt":
    case "lt": {
      const expected = operand(rule.value);
      const greater = rule.operator === "gt";
      return onComparable(steps, (actual, kind) => {
        const target = kind === Kind.Boolean ? undefined : against(expected, kind);
        if (target === undefined) return false;
        return greater ? actual > target : actual < target;
      });
    }
    default:
      // An operator outside the seven (bad data that slipped past validation) never matches.
      return () => false;
  }
}

/**
 * A predicate over the user's value at `steps`, read as a comparable primitive; a missing or
 * incomparable value matches nothing, whatever the operator.
 */
function onComparable(steps: readonly string[], test: (actual: string | number | boolean, kind: Kind) => boolean): (user: unknown) => boolean {
  return (user) => {
    const raw = readSteps(user, steps);
    const kind = kindOf(raw);
    return kind !== Kind.None && test(primitiveOf(raw, kind), kind);
  };
}

/** `contains`: substring for strings, membership (same type) for arrays. */
function contains(raw: unknown, needle: Operand): boolean {
  if (typeof raw === "string") return needle.kind === Kind.String && typeof needle.value === "string" && raw.includes(needle.value);
  if (!Array.isArray(raw) || needle.kind === Kind.None) return false;
  for (const item of raw) {
    const kind = kindOf(item);
    if (kind !== Kind.None && against(needle, kind) === primitiveOf(item, kind)) return true;
  }
  return false;
}
