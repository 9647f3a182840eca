// The script and cron helpers' public surface, re-exported by the package entry's `--- scripts`
// section.
export { wrapScript, type WrapScriptOptions } from "./wrap-script.js";
export { cronjob, type CronjobOptions, type CronjobHandle } from "./cronjob.js";
export { cronExpressionProblem } from "./cron-expression.js";
export { claimCronRun, cronRunModel, type CronRunFields } from "./cron-claims.js";
export { timeout } from "./timeout.js";
export { ScriptErrors } from "./errors.js";
