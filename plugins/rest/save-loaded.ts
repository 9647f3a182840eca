import mongoose, { type HydratedDocument } from "mongoose";
import { markStaleWrite } from "../../contracts/stale-write.js";
import { RestErrors } from "./errors.js";

/** What saving a loaded record came to: saved, or nothing to save — another request deleted it. */
export type SaveOutcome = "saved" | "gone";

/**
 * Saves a record this request loaded, as of what it was when loaded. Another request may have
 * deleted it meanwhile: that is `"gone"` (with `softDelete`, the save matches the record only while
 * it is still not deleted; a hard delete is mongoose's DocumentNotFoundError), never a write to a
 * deleted record. Or it may have changed an array the save replaces (mongoose's VersionError, its
 * check on `__v`): that is a stale write (`REST_STALE_DOCUMENT`, marked), which `retryStaleWrite`
 * redoes from a fresh load, as it does a synced model's.
 *
 * @example
 * if ((await saveLoaded(doc, { softDelete: true })) === "gone") throw RestErrors.NOT_FOUND();
 */
export async function saveLoaded(doc: HydratedDocument<Record<string, unknown>>, options: { readonly softDelete: boolean }): Promise<SaveOutcome> {
  const where = doc.$where;
  if (options.softDelete) doc.$where = { ...where, deleted: { $ne: true } };
  try {
    await doc.save();
    return "saved";
  } catch (error) {
    if (error instanceof mongoose.Error.DocumentNotFoundError) return "gone";
    if (error instanceof mongoose.Error.VersionError) {
      const model = (doc.constructor as { modelName?: string }).modelName ?? "record";
      throw markStaleWrite(RestErrors.STALE_DOCUMENT({ detail: `This ${model} changed since it was loaded; load it again`, cause: error }));
    }
    throw error;
  } finally {
    // Post hooks may save the document again, a postDelete hook one that is deleted by now.
    doc.$where = where;
  }
}
