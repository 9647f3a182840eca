import { defineErrors } from "../../kernel/errors.js";

/**
 * The database layer's errors: start-up mistakes, and the ones a request can run into (a
 * duplicate unique value, 409 — `meta.fields` names the fields, never the values; a save that
 * lost to a concurrent write, 409 or 404).
 *
 * @example
 * if (isDuplicateKeyError(error)) throw DatabaseErrors.DUPLICATE_KEY({ meta: { fields: ["email"] } });
 */
export const DatabaseErrors = defineErrors("DATABASE", {
  DUPLICATE_KEY: { status: 409, title: "Duplicate value" },
  /**
   * A `save()` of a loaded document lost to another write: mongoose's version check on an array
   * the save replaces (`VersionError`). Load the document again and redo the change.
   */
  STALE_DOCUMENT: { status: 409, title: "Conflict" },
  /** A `save()` of a loaded document found it deleted meanwhile (mongoose's `DocumentNotFoundError`). */
  DOCUMENT_GONE: { status: 404, title: "Not found" },
  NOT_STARTED: { message: () => "The database is not open yet: resolve DATABASE after the database plugin started" },
  URI_REQUIRED: {
    message: () =>
      "DB_URI (or DB_CONNECTION) must be set in production: point it at a MongoDB replica set. " +
      "The embedded engine is for development and tests only.",
  },
  CONNECTION_IN_USE: {
    message: (wanted: string, current: string) =>
      `mongoose's default connection is already open on ${current}; cannot also open ${wanted} in this process`,
  },
  CONNECT_FAILED: { message: (uri: string, reason: string) => `Could not connect to ${uri}: ${reason}` },
  /** A model's index build failed at start (its records already break a unique index, say). */
  INDEXES_FAILED: {
    message: (model: string, reason: string) =>
      `The indexes of ${model} could not be built: ${reason}. Fix what the database reports (records breaking a unique ` +
      "index: remove the duplicates; an index that exists with other options: drop it so it is built anew), or set " +
      "autoIndex: false on the schema or connection if you manage indexes yourself.",
  },
  SECOND_MONGOOSE: {
    message: (model: string, usedBy: string, theirs: string, ours: string) =>
      `Model "${model}" (${usedBy}) was created with another copy of mongoose (${theirs}) than the one svc ` +
      `connects (${ours}), so its queries would wait forever. Install one copy: mongoose is a peer ` +
      "dependency of svc; `npm ls mongoose` lists the copies. A linked or file: install of svc keeps its own " +
      "node_modules/mongoose: install svc from the registry or a tarball (`npm pack`) instead, or remove that folder.",
  },
  MODEL_ON_OTHER_CONNECTION: {
    message: (model: string, usedBy: string) =>
      `Model "${model}" (${usedBy}) is declared on a connection svc does not open (one from ` +
      "mongoose.createConnection()?), so its queries would wait forever. Declare models with " +
      "mongoose.model(...) on the default connection; svc connects it.",
  },
});
