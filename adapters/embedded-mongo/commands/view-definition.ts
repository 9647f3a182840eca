import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { ViewDefinition } from "../storage/collection-options.js";
import type { ReadView } from "../sessions/read-view.js";
import { isPlainDocument } from "./command-arguments.js";

/** mongod's limit on views defined on views. */
const MAX_VIEW_DEPTH = 20;

/** Stages a view's pipeline may not contain (they write, or need a real collection). */
const FORBIDDEN_VIEW_STAGES = new Set(["$out", "$merge", "$changeStream"]);

/**
 * Checks a `create`/`collMod` view definition as mongod does: `viewOn` a non-empty string,
 * `pipeline` an array of one-field stage documents without `$out`/`$merge`/`$changeStream`
 * (OptionNotSupportedOnView 167), and no cycle through other views (GraphContainsCycle 5) or
 * chain deeper than 20 (ViewDepthLimitExceeded 149).
 *
 * @example
 * parseViewDefinition(view, "app", "paid", "orders", [{$match: {paid: true}}]);
 */
export function parseViewDefinition(view: ReadView, db: string, name: string, viewOn: unknown, pipeline: unknown): ViewDefinition {
  if (typeof viewOn !== "string") throw new EngineError(ErrorCodes.TypeMismatch, "'viewOn' must be a string");
  if (viewOn.length === 0) throw new EngineError(ErrorCodes.BadValue, "'viewOn' cannot be empty");
  const stages = pipeline === undefined || pipeline === null ? [] : pipeline;
  if (!Array.isArray(stages)) throw new EngineError(ErrorCodes.TypeMismatch, "'pipeline' must be an array");
  for (const stage of stages) {
    if (!isPlainDocument(stage) || Object.keys(stage).length !== 1) {
      throw new EngineError(40323, "A pipeline stage specification object must contain exactly one field.");
    }
    const stageName = Object.keys(stage)[0]!;
    if (FORBIDDEN_VIEW_STAGES.has(stageName)) {
      throw new EngineError(ErrorCodes.OptionNotSupportedOnView, `${stageName} cannot be used in a view definition`);
    }
  }
  let next: string | undefined = viewOn;
  for (let depth = 1; next !== undefined; depth++) {
    if (next === name) throw new EngineError(ErrorCodes.GraphContainsCycle, `View cycle detected: ${db}.${name} => ${db}.${viewOn}`);
    if (depth > MAX_VIEW_DEPTH) throw new EngineError(ErrorCodes.ViewDepthLimitExceeded, `View depth too deep or view cycle detected. Maximum depth is ${MAX_VIEW_DEPTH}`);
    next = view.collection(db, next)?.view?.viewOn;
  }
  return { viewOn, pipeline: stages as Document[] };
}
