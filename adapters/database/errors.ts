import { defineErrors } from "../../kernel/errors.js";

export const DatabaseErrors = defineErrors("DATABASE", {
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
