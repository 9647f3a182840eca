import { EngineError } from "../engine-error.js";

/**
 * An error a change stream cannot recover from by resuming (ChangeStreamFatalError 280,
 * ChangeStreamHistoryLost 286), labelled `NonResumableChangeStreamError` as mongod labels that
 * error category, so drivers surface it instead of resuming.
 *
 * @example
 * throw nonResumableError(ErrorCodes.ChangeStreamFatalError, "cannot resume stream; the resume token was not found");
 */
export function nonResumableError(code: number, message: string): EngineError {
  return new EngineError(code, message, { errorLabels: ["NonResumableChangeStreamError"] });
}
