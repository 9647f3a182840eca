import { Decimal128, Double, Int32, Long } from "bson";

/**
 * Reads a command option that MongoDB accepts as "any number" (drivers send `1` as Int32,
 * `1.5` as Double, big counts as Long) as a plain JS number; `undefined` for non-numbers.
 * Only for option values (limits, batch sizes, key directions), never for user data, whose exact
 * BSON type must survive.
 *
 * @example
 * optionNumber(new Int32(5)); // 5
 * optionNumber("5");          // undefined
 */
export function optionNumber(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (value instanceof Int32 || value instanceof Double) return value.value;
  if (value instanceof Long) return value.toNumber();
  if (value instanceof Decimal128) return Number(value.toString());
  return undefined;
}

/**
 * Reads a MongoDB "truthy" option: booleans as is, numbers as non-zero (the shell's `{unique: 1}`).
 *
 * @example
 * optionFlag(new Int32(1)); // true
 */
export function optionFlag(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  const n = optionNumber(value);
  return n !== undefined ? n !== 0 : value !== undefined && value !== null;
}
