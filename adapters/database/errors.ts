import { defineErrors } from "../../kernel/errors.js";

/**
 * The database layer's errors: start-up mistakes, and the one a client can cause (a duplicate
 * unique value, 409 — `meta.fields` names the fields, never the values).
 *
 * @example
 * if (isDuplicateKeyError(error)) throw DatabaseErrors.DUPLICATE_KEY({ meta: { fields: ["email"] } });
 */
export const DatabaseErrors = defineErrors("DATABASE", {
  DUPLICATE_KEY: { status: 409, title: "Duplicate value" },
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
});
