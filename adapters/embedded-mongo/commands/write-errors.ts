import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";

/**
 * A `writeErrors` entry for statement `index`: `{index, code, errmsg, ...}` carrying the extra
 * fields of the error (`keyPattern`/`keyValue` for 11000, `errInfo` for 121). Non-engine
 * exceptions become InternalError rather than escaping the batch.
 *
 * @example
 * writeErrors.push(writeErrorOf(error, 3)); // {index: 3, code: 11000, errmsg: "E11000 ...", keyPattern, keyValue}
 */
export function writeErrorOf(error: unknown, index: number): Document {
  const engineError =
    error instanceof EngineError
      ? error
      : new EngineError(ErrorCodes.InternalError, `internal error: ${error instanceof Error ? error.message : String(error)}`);
  const { errorLabels: _labels, ...extra } = engineError.extra;
  void _labels;
  return { index, code: engineError.code, errmsg: engineError.message, ...extra };
}
