import { defineErrors } from "../../kernel/errors.js";

/**
 * The admin plugin's errors. Shared meanings are not redeclared: sign-in required and forbidden
 * are `HttpErrors`, missing records `REST_NOT_FOUND`, bad bodies and queries `ValidationErrors`.
 *
 * @example
 * throw AdminErrors.UNKNOWN_SCRIPT({ detail: "No script named reindex" }); // 404, ADMIN_UNKNOWN_SCRIPT
 */
export const AdminErrors = defineErrors("ADMIN", {
  /** A bulk operation named a record the caller may not change, or one that does not exist: nothing was written. */
  BULK_REFUSED: { status: 403, title: "Bulk operation refused" },
  /** A caller with only `writeOwned` sent a field only `write` may set (`admin`, `roles`, `disabled`, the owner field...). */
  FIELD_NOT_PERMITTED: { status: 403, title: "Field not permitted" },
  /** No script is registered under this name. */
  UNKNOWN_SCRIPT: { status: 404, title: "Not found" },
  /** No background task has this id (tasks are kept in memory, the most recent ones only). */
  UNKNOWN_TASK: { status: 404, title: "Not found" },
  /** The script already has as many runs in progress as its `concurrency` allows (default 1); `meta.taskIds` names them. */
  SCRIPT_RUNNING: { status: 409, title: "Script already running" },
  /** The admin web UI's files could not be loaded (a package built without them, or a failed development build: the log says why). */
  UI_UNAVAILABLE: { status: 503, title: "Admin UI unavailable" },
  NOT_STARTED: { message: () => "The admin plugin has not started: resolve ADMIN_PERMISSIONS in the start() of a plugin with dependsOn: [\"admin\"], or per request" },
  INVALID_BASE_PATH: { message: (basePath: string) => `adminPlugin: basePath "${basePath}" must start with / and not end with one` },
  INVALID_ROUTE_PATH: { message: (model: string, routePath: string) => `adminPlugin: ${model}'s routePath "${routePath}" must start with / and not end with one` },
  DUPLICATE_ROUTE: { message: (routePath: string, first: string, second: string) => `adminPlugin: ${first} and ${second} both use routePath "${routePath}"` },
  RESERVED_ROUTE: { message: (routePath: string, model: string) => `adminPlugin: ${model}'s routePath "${routePath}" is one of the admin's own routes` },
  INVALID_SCRIPT_NAME: { message: (name: string) => `adminPlugin: script name "${name}" must be 1 to 64 letters, digits, - or _` },
  INVALID_SCRIPT_CONCURRENCY: { message: (name: string, value: unknown) => `adminPlugin: script "${name}" has concurrency ${String(value)}; it must be a whole number from 1 to 100` },
  INVALID_SCREEN_SCRIPT: { message: (why: string) => `adminPlugin: ui.screenScripts ${why}` },
});
