import { makeValidator } from "./environment.js";

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/**
 * Parses a token lifetime such as `15m`, `30d`, `12h`, `45s` or a bare number of seconds.
 * Returns undefined for anything else (including zero), so callers can report the variable.
 *
 * @example
 * parseDurationSeconds("15m"); // 900
 */
export function parseDurationSeconds(input: string): number | undefined {
  const match = /^\s*(\d{1,9})\s*([smhdw]?)\s*$/.exec(input);
  if (!match) return undefined;
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] || "s"]!;
  return seconds > 0 ? seconds : undefined;
}

/** envalid validator for a lifetime variable (`TOKEN_EXPIRES_IN=15m`), parsed to seconds. */
export const durationSeconds = makeValidator<number>((input: string) => {
  const seconds = parseDurationSeconds(input);
  if (seconds === undefined) throw new Error(`must be a duration like 15m, 12h, 30d or a number of seconds, got "${input}"`);
  return seconds;
});
