import { defineErrors } from "../../kernel/errors.js";

/** Errors of the script and cron helpers (codes `SCRIPTS_*`). */
export const ScriptErrors = defineErrors("SCRIPTS", {
  INVALID_CRON_EXPRESSION: {
    message: (expression: string, reason: string) =>
      `Invalid cron expression "${expression}": ${reason}. Use five fields: minute hour day-of-month month day-of-week, e.g. "*/5 * * * *"`,
  },
  INVALID_TIMEZONE: { message: (timezone: string) => `Unknown time zone "${timezone}" (use an IANA name such as "Europe/Berlin")` },
  EXCLUSIVE_NAME_REQUIRED: {
    message: (expression: string) => `The exclusive cron job "${expression}" needs a name, the same in every process: its runs are claimed by name`,
  },
});
