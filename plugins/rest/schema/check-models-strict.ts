import mongoose, { type Model } from "mongoose";
import { RestErrors } from "../errors.js";

/** Why one model fails the strictness check (empty when it passes). */
export function strictnessProblems(model: Pick<Model<unknown>, "modelName" | "schema">): string[] {
  const options = model.schema.options as {
    strict?: unknown;
    toJSON?: { virtuals?: unknown };
    toObject?: { virtuals?: unknown };
  };
  const problems: string[] = [];
  // Mongoose's own default is `true`; only an explicit `false` (or anything odd) is lax.
  const strict = options.strict ?? true;
  if (strict !== true && strict !== "throw") problems.push(`strict is ${JSON.stringify(strict)} (use "throw" or true)`);
  if (options.toJSON?.virtuals !== true) problems.push("toJSON lacks virtuals: true");
  if (options.toObject?.virtuals !== true) problems.push("toObject lacks virtuals: true");
  return problems;
}

/**
 * The start-up check: throws one `REST_MODELS_NOT_STRICT` error listing *every* model that is not
 * strict (`strict: "throw"` or `true`) or lacks `toJSON` and `toObject` with `virtuals: true`, so
 * all offenders are fixed in one go. Checks the given models, or every model on mongoose's
 * default connection.
 *
 * @example
 * checkModelsStrict(); // after importing every model, before app.start()
 */
export function checkModelsStrict(models?: ReadonlyArray<Pick<Model<unknown>, "modelName" | "schema">>): void {
  const candidates = models ?? mongoose.modelNames().map((name) => mongoose.model(name));
  const report = candidates
    .map((model) => ({ name: model.modelName, problems: strictnessProblems(model) }))
    .filter((entry) => entry.problems.length > 0)
    .map((entry) => `  ${entry.name}: ${entry.problems.join("; ")}`);
  if (report.length > 0) throw RestErrors.MODELS_NOT_STRICT(report.join("\n"));
}
