import { defineErrors } from "../../kernel/errors.js";

/** Errors of the `svc/testing` helpers: a test set-up that cannot do what it was asked. */
export const TestingErrors = defineErrors("TESTING", {
  /** `loginAs` was refused by `POST /auth/login` (wrong password, disabled user, no JWT routes). */
  LOGIN_FAILED: {
    message: (email: string, status: number, code: string | undefined) =>
      `loginAs(${email}): POST /auth/login answered ${status}${code ? ` ${code}` : ""}`,
  },
  /** `MongoMemoryReplSet` with more than one member: the embedded engine is one server. */
  REPLICA_SET_SIZE: {
    message: (count: number) =>
      `MongoMemoryReplSet: the embedded engine is a one-member replica set (asked for ${count} members); use replSet: {count: 1}`,
  },
  /** `getUri()` before `start()` or after `stop()`. */
  MEMORY_SERVER_NOT_RUNNING: {
    message: (what: string) => `${what}.getUri(): the server is not running (call start() or create() first)`,
  },
});
