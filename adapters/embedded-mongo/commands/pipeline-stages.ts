import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandContext } from "./command-context.js";

/**
 * Runs the stages the planner could not take over, through the query library's pipeline engine.
 * (Waiting for `runPipeline`; see query/REQUESTS.md.)
 */
export async function runRemainingStages(
  ctx: CommandContext,
  collectionName: string | undefined,
  input: Document[],
  stages: Document[],
): Promise<Document[]> {
  void ctx;
  void collectionName;
  void input;
  throw new EngineError(
    ErrorCodes.NotImplemented,
    `aggregation stage ${Object.keys(stages[0] ?? {})[0] ?? "?"} is not supported by the embedded engine yet`,
  );
}
