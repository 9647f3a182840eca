import type { OperationObject, ParameterObject, SchemaObject } from "openapi3-ts/oas31";
import { ACCOUNT_SIGN_IN_SCHEMA } from "../../contracts/accounts.js";
import type { OpenApiRegistry } from "../../kernel/openapi-registry.js";
import { BEARER_SCHEME, sharedResponses, type SharedResponse } from "../../kernel/openapi-shared-components.js";
import type { AdminEntry } from "./admin-entry.js";
import { adminOperationName } from "./admin-model-router.js";
import { ADMIN_TAG } from "./admin-tag.js";
import { SET_PASSWORD_BODY } from "./user-account-routes.js";

// What a route that takes a JSON body may answer besides its own refusals.
const BODY_ERRORS: SharedResponse[] = ["BadRequest", "PayloadTooLarge", "UnsupportedMediaType"];

function operation(operationId: string, summary: string, ok: { status: number; description: string; data: SchemaObject }, errors: SharedResponse[], extra: Partial<OperationObject> = {}): OperationObject {
  const responses: OperationObject["responses"] = {
    [ok.status]: { description: ok.description, content: { "application/json": { schema: { type: "object", required: ["data"], properties: { data: ok.data } } } } },
    ...sharedResponses(["Unauthorized", "Forbidden", ...errors]),
  };
  return { operationId, summary, tags: [ADMIN_TAG.name], security: [{ [BEARER_SCHEME]: [] }], ...extra, responses };
}

const object = (description: string): SchemaObject => ({ type: "object", description, additionalProperties: true });
const task: SchemaObject = {
  type: "object",
  required: ["id", "script", "status", "started", "log"],
  properties: {
    id: { type: "string" },
    script: { type: "string" },
    status: { type: "string", enum: ["running", "succeeded", "failed"] },
    startedBy: { type: "string" },
    started: { type: "string", format: "date-time" },
    finished: { type: "string", format: "date-time" },
    log: { type: "array", items: { type: "string" } },
    error: { type: "string", description: "The failure's message" },
  },
};
const results: SchemaObject = {
  type: "object",
  required: ["results", "count"],
  properties: {
    results: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "status"],
        properties: {
          id: { type: "string" },
          status: { type: "integer", description: "200 (updated) or 204 (deleted); 404 when another request deleted the record after this one loaded it" },
          code: { type: "string", description: "With 404: REST_NOT_FOUND" },
        },
      },
    },
    count: { type: "integer", description: "Records written" },
  },
};

/**
 * Documents the admin's own routes: the config, the platform tools, each model's bulk operations
 * and the user models' account routes (set password, end sign-ins) (the per-model CRUD is documented by its model
 * router, under the same `admin` tag).
 *
 * @example
 * documentAdmin(ctx.openapi, "/admin", bulkBodies, userEntries);
 */
export function documentAdmin(
  openapi: OpenApiRegistry,
  basePath: string,
  bulk: readonly { entry: AdminEntry; update: SchemaObject; remove: SchemaObject }[],
  accounts: readonly AdminEntry[] = [],
): void {
  openapi.addTag({ name: ADMIN_TAG.name, description: ADMIN_TAG.description });
  openapi.addOperation(
    "get",
    `${basePath}/config`,
    operation("readAdminConfig", "The caller's admin configuration", { status: 200, description: "Models, custom screens and platform tools the caller may use", data: object("{basePath, models, customScreens, platformTools}") }, [], {
      description: "Needs `admin: true` or, with role-based access, `admin:access`. Models and screens the caller cannot read are left out; controls they cannot use are `disabled`.",
    }),
  );
  openapi.addOperation("get", `${basePath}/scripts`, operation("listAdminScripts", "List the registered scripts", { status: 200, description: "Script names and descriptions", data: { type: "array", items: object("{name, description}") } }, []));
  const name: ParameterObject = { name: "name", in: "path", required: true, description: "The script's name", schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" } };
  openapi.addOperation("post", `${basePath}/scripts/:name/run`, operation("runAdminScript", "Run a script as a background task", { status: 202, description: "The task, running", data: task }, ["NotFound", "Conflict"], { parameters: [name] }));
  openapi.addOperation("get", `${basePath}/tasks`, operation("listAdminTasks", "List background tasks, newest first", { status: 200, description: "The kept tasks", data: { type: "array", items: task } }, []));
  const id: ParameterObject = { name: "id", in: "path", required: true, description: "The task's id", schema: { type: "string" } };
  openapi.addOperation("get", `${basePath}/tasks/:id`, operation("readAdminTask", "Read a background task's status and log", { status: 200, description: "The task", data: task }, ["NotFound"], { parameters: [id] }));
  openapi.addOperation("get", `${basePath}/roles`, operation("listAdminRoles", "List roles and their permissions", { status: 200, description: "The roles", data: { type: "array", items: object("{name, permissions, description}") } }, []));
  openapi.addOperation("get", `${basePath}/version`, operation("readAdminVersion", "Framework, app and runtime versions", { status: 200, description: "Versions", data: object("{framework, app, runtime, startedAt}") }, []));
  openapi.addOperation("get", `${basePath}/configuration`, operation("readAdminConfiguration", "The effective configuration, secrets redacted", { status: 200, description: "Configuration", data: object("{nodeEnv, port, environment, ...}") }, []));
  for (const { entry, update, remove } of bulk) {
    const plural = `${adminOperationName(entry.modelName)}Records`;
    openapi.addOperation(
      "post",
      `${entry.fullPath}/bulk-update`,
      operation(`bulkUpdate${plural}`, `Update many ${entry.modelName} records`, { status: 200, description: "Each record's result", data: results }, [...BODY_ERRORS, "Conflict"], {
        description:
          "All or nothing on authorisation: one missing or refused record refuses the request (403 ADMIN_BULK_REFUSED) and nothing is written. " +
          "A change giving two of the records one value of a unique index is refused before any write (409 DATABASE_DUPLICATE_KEY).",
        requestBody: { required: true, content: { "application/json": { schema: update } } },
      }),
    );
    openapi.addOperation(
      "post",
      `${entry.fullPath}/bulk-delete`,
      operation(`bulkDelete${plural}`, `Delete many ${entry.modelName} records`, { status: 200, description: "Each record's result", data: results }, BODY_ERRORS, {
        description: "All or nothing on authorisation, as bulk update.",
        requestBody: { required: true, content: { "application/json": { schema: remove } } },
      }),
    );
  }
  for (const entry of accounts) {
    const recordId: ParameterObject = { name: "id", in: "path", required: true, description: `The ${entry.modelName}'s id`, schema: { type: "string" } };
    openapi.addOperation("post", `${entry.fullPath}/:id/password`, {
      operationId: `set${adminOperationName(entry.modelName)}Password`,
      summary: `Set a ${entry.modelName}'s password`,
      description:
        "Sets the user's password and ends every sign-in of that user (JWT provider only). Needs the record's update rules and `<resource>:write` " +
        "(or `admin: true`): `writeOwned` alone is refused with 403 ADMIN_FIELD_NOT_PERMITTED, also on the caller's own record. " +
        "The app's password policy applies (400 AUTH_WEAK_PASSWORD). Audited as an update of `password`, never with the value.",
      tags: [ADMIN_TAG.name],
      security: [{ [BEARER_SCHEME]: [] }],
      parameters: [recordId],
      requestBody: { required: true, content: { "application/json": { schema: SET_PASSWORD_BODY } } },
      responses: { 204: { description: "Password set; the user's sign-ins are ended" }, ...sharedResponses(["Unauthorized", "Forbidden", ...BODY_ERRORS, "NotFound"]) },
    });
    openapi.addOperation("post", `${entry.fullPath}/:id/end-sign-ins`, {
      operationId: `end${adminOperationName(entry.modelName)}SignIns`,
      summary: `End every sign-in of a ${entry.modelName}`,
      description:
        "Ends every sign-in of the user at once (JWT provider only): refresh tokens revoked, access tokens refused from the next request on (AUTH_TOKEN_REVOKED). " +
        "The password stays. Needs what setting the password needs. No body (or `{}`). Audited as an update of `signInVersion`.",
      tags: [ADMIN_TAG.name],
      security: [{ [BEARER_SCHEME]: [] }],
      parameters: [recordId],
      responses: { 204: { description: "The user's sign-ins are ended" }, ...sharedResponses(["Unauthorized", "Forbidden", ...BODY_ERRORS, "NotFound"]) },
    });
    openapi.addOperation("get", `${entry.fullPath}/:id/sign-ins`, {
      operationId: `list${adminOperationName(entry.modelName)}SignIns`,
      summary: `A ${entry.modelName}'s sign-ins (devices)`,
      description:
        "The user's sign-ins that can still be refreshed, newest activity first, at most 100 (JWT provider only): where they signed in, when, from which user agent and IP. " +
        "Needs what ending the sign-ins needs.",
      tags: [ADMIN_TAG.name],
      security: [{ [BEARER_SCHEME]: [] }],
      parameters: [recordId],
      responses: {
        200: { description: "The sign-ins", content: { "application/json": { schema: { type: "object", properties: { data: { type: "array", items: ACCOUNT_SIGN_IN_SCHEMA, maxItems: 100 } }, required: ["data"] } } } },
        ...sharedResponses(["Unauthorized", "Forbidden", "NotFound"]),
      },
    });
    openapi.addOperation("delete", `${entry.fullPath}/:id/sign-ins/:signInId`, {
      operationId: `end${adminOperationName(entry.modelName)}SignIn`,
      summary: `End one sign-in of a ${entry.modelName}`,
      description:
        "Signs the user out on that device only (JWT provider only): its refresh tokens revoked, its access tokens refused from the next request on. " +
        "Needs what ending the sign-ins needs; 404 when the user has no such sign-in that could still be used. Audited as an update of `endedSignIns`.",
      tags: [ADMIN_TAG.name],
      security: [{ [BEARER_SCHEME]: [] }],
      parameters: [recordId, { name: "signInId", in: "path", required: true, description: "A sign-in id from the list", schema: { type: "string", maxLength: 64 } }],
      responses: { 204: { description: "That sign-in is ended" }, ...sharedResponses(["Unauthorized", "Forbidden", "NotFound"]) },
    });
  }
}
