import { CronTime, validateCronExpression } from "cron";

/**
 * Why `expression` is not a five-field cron expression (minute hour day-of-month month
 * day-of-week) that ever runs, or undefined when it is one. Besides the syntax it catches
 * expressions no date matches (`0 3 31 2 *`, February 31st), which the `cron` package only
 * notices when it schedules them, with an error of its own. `timezone` must be a known one.
 *
 * @example
 * cronExpressionProblem("0 3 31 2 *"); // "no date matches it (it would never run)"
 */
export function cronExpressionProblem(expression: string, timezone?: string): string | undefined {
  const trimmed = expression.trim();
  const fields = trimmed === "" ? [] : trimmed.split(/\s+/);
  if (fields.length !== 5) return `it has ${fields.length} fields, not 5`;
  const validation = validateCronExpression(trimmed);
  if (!validation.valid) return validation.error instanceof Error ? validation.error.message : "not a cron expression";
  try {
    new CronTime(trimmed, timezone).sendAt();
  } catch {
    // The cron package looks eight years ahead and throws when nothing matches.
    return "no date matches it (it would never run)";
  }
  return undefined;
}
