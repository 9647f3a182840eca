import type { Model } from "mongoose";
import type { SvcLogger } from "../../kernel/logger.js";
import { DatabaseErrors } from "./errors.js";

/** How long a start waits for index builds (a new index on a big collection can take minutes). */
export const INDEX_WAIT_MS = 10_000;

/**
 * Waits until the indexes mongoose builds for `models` exist (each model's `init()`), so the app
 * serves only once its unique indexes can keep duplicates out: without the wait, a burst of
 * creates right after a start on a fresh database stored two records of one unique value, and
 * then the index build failed without a word. A build that fails — records already break a
 * unique index — throws `DATABASE_INDEXES_FAILED` naming the model and the database's reason.
 * Builds still running after `waitMs` are left to finish; the app serves meanwhile, and a later
 * failure is logged as an error. A model with `autoIndex: false` builds nothing and is not waited
 * for.
 *
 * @example
 * await awaitModelIndexes(Object.values(connection.models), logger);
 */
export async function awaitModelIndexes(models: readonly Model<unknown>[], logger: SvcLogger, waitMs = INDEX_WAIT_MS): Promise<void> {
  const pending = new Set(models.map((model) => model.modelName));
  const builds = models.map((model) =>
    model.init().then(
      () => void pending.delete(model.modelName),
      (error: unknown) => {
        pending.delete(model.modelName);
        throw DatabaseErrors.INDEXES_FAILED(model.modelName, error instanceof Error ? error.message : String(error));
      },
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<"waited">((resolve) => (timer = setTimeout(() => resolve("waited"), waitMs)));
  try {
    if ((await Promise.race([Promise.all(builds), waited])) !== "waited") return;
  } finally {
    clearTimeout(timer);
  }
  logger.warn(`Indexes of ${[...pending].join(", ")} are still being built after ${Math.round(waitMs / 1000)} s; serving meanwhile (unique values are enforced once they exist)`, {
    models: [...pending],
  });
  for (const build of builds) build.catch((error: unknown) => logger.error(error instanceof Error ? error.message : String(error)));
}
