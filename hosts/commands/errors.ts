import { defineErrors } from "../../kernel/errors.js";

/** Errors of the app commands (`runCommand`, `createAdminUser`): usage mistakes and refusals. */
export const CommandErrors = defineErrors("COMMAND", {
  UNKNOWN_COMMAND: {
    message: (name: string, known: readonly string[]) => `Unknown command "${name}"; commands: ${known.join(", ")}`,
  },
  /** Missing, unknown or malformed options; the message says which. */
  INVALID_ARGUMENTS: { message: (problem: string) => problem },
  /** Command lines end up in shell history and `ps`: passwords come from stdin or the environment. */
  PASSWORD_ON_COMMAND_LINE: {
    message: () =>
      "Passwords are not accepted on the command line (shell history and `ps` would keep them): " +
      "use --password-stdin, set ADMIN_PASSWORD, or omit both to get a generated password",
  },
  /** The app's database is the embedded engine in memory: what the command writes ends with it. */
  DATABASE_IN_MEMORY: {
    message: () =>
      "The app's database is the embedded engine in memory, so the admin would be gone when this command ends: " +
      'give the app a data directory (new SvcApp({ database: { dbPath: ".svc/data" } }), as the server uses) or set DB_URI',
  },
  /** The email belongs to a soft-deleted user, which is not silently brought back as an admin. */
  USER_DELETED: {
    message: (email: string) => `${email} belongs to a deleted user: restore it first, or use another email`,
  },
});
