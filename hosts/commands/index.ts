// `svc/commands`: administration commands a project runs against its own app (create an admin
// user, reset its password), through the app's auth plugin and user model. docs/auth.md shows the
// script a project adds.
export { runCommand, COMMAND_USAGE, type RunCommandOptions, type CommandOutput } from "./run-command.js";
export { createAdminUser, type CreateAdminUserOptions, type CreateAdminUserResult } from "./create-admin-user.js";
export { CommandErrors } from "./errors.js";
export { AppAccountsErrors } from "../app-accounts.js";
