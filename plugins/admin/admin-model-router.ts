import type { Request } from "express";
import type { HydratedDocument } from "mongoose";
import type { SchemaObject } from "openapi3-ts/oas31";
import { modelRouter, type ModelRouter, type PermissionCheck, type ResponseDocument, type RestMethod, type RestModel } from "../rest/index.js";
import type { AdminAccessPolicy } from "./admin-access.js";
import type { AdminEntry } from "./admin-entry.js";
import { ADMIN_TAG } from "./admin-tag.js";
import type { AuditLog } from "./audit-log.js";

type Fields = Record<string, unknown>;

// What the responseHandler below adds to read and list records (not to create/update answers).
const ADMIN_CAPABILITIES: SchemaObject = {
  type: "object",
  description: "On read and list: whether this caller may update or delete this record (a UI disables its buttons)",
  required: ["update", "delete"],
  properties: { update: { type: "boolean" }, delete: { type: "boolean" } },
};

/**
 * Told of each record the admin deleted (single or bulk), once it is deleted and audited: for a
 * user model under the JWT provider, `ACCOUNTS.accountDeleted` (sign-ins end, the password goes).
 */
export type RecordDeleted = (record: Record<string, unknown> & { _id: unknown }) => Promise<void>;

/**
 * The admin's CRUD for one model: a `modelRouter` at `basePath + routePath` (so validation,
 * pagination, filters, soft delete, error shapes and OpenAPI are exactly REST's), whose
 * permission checks are the admin's access rules, whose list filters on the list fields and
 * searches (`?search=`) the model's text fields, which refuses protected fields to `writeOwned`
 * callers, records every write in the audit log, and adds `_adminCapabilities` to each record.
 *
 * @example
 * const router = adminModelRouter(entry, access, audit);
 * await router.start?.(ctx);
 */
export function adminModelRouter(entry: AdminEntry, access: AdminAccessPolicy, audit: AuditLog, recordDeleted?: RecordDeleted): ModelRouter<Fields> {
  const check: PermissionCheck = Object.assign(
    (method: RestMethod, user: Parameters<PermissionCheck>[1], object: Parameters<PermissionCheck>[2]) => access.decide(entry, method, user, object as Fields | undefined),
    { requiresAuthentication: () => true },
  );
  const writes = entry.readOnly ? [] : [check];
  // What a create wrote: the checked body with the owner the router set (the request's own body is left as the client sent it).
  const createdFields = new WeakMap<Request, string[]>();
  const recordWrite = (action: "create" | "update" | "delete", doc: HydratedDocument<Fields>, fields: readonly string[], req: Request) =>
    audit.record(req.user, action, entry.modelName, [{ id: doc._id, fields }]);

  return modelRouter(entry.fullPath, entry.model as unknown as RestModel<Fields>, {
    permissions: { list: [check], read: [check], create: writes, update: writes, delete: writes },
    ownerField: entry.ownerField,
    // Who writes a user's managed fields is the admin's rule (checkFields below: `<resource>:write`), not only `admin: true`.
    adminOnlyFields: [],
    queryFields: filterFields(entry),
    searchFields: textFields(entry),
    sort: entry.defaultSort,
    openApi: {
      tag: ADMIN_TAG.name,
      tagDescription: ADMIN_TAG.description,
      singular: adminOperationName(entry.modelName),
      description: `A ${entry.modelName} as the admin sees it`,
      responseProperties: { _adminCapabilities: ADMIN_CAPABILITIES },
    },
    preCreate: async (body, req) => {
      await access.checkFields(entry, req.user, body);
      createdFields.set(req, Object.keys(body));
      return body;
    },
    preUpdate: async (body, req) => {
      await access.checkFields(entry, req.user, body);
      return body;
    },
    postCreate: (doc, req) => recordWrite("create", doc, createdFields.get(req) ?? Object.keys(req.body ?? {}), req),
    postUpdate: (doc, body, req) => recordWrite("update", doc, Object.keys(body), req),
    postDelete: async (doc, req) => {
      await recordWrite("delete", doc, [], req);
      await recordDeleted?.(doc.toObject({ depopulate: true, virtuals: false }) as Fields & { _id: unknown });
    },
    responseHandler: async (doc: ResponseDocument, method: RestMethod, req: Request) => {
      if (method !== "list" && method !== "read") return doc;
      const [update, remove] = await Promise.all([access.decide(entry, "update", req.user, doc), access.decide(entry, "delete", req.user, doc)]);
      return { ...doc, _adminCapabilities: { update, delete: remove } };
    },
  });
}

/** Filterable: the list fields the schema has (and are not hidden), plus `_id`. */
function filterFields(entry: AdminEntry): string[] {
  const schema = entry.model.schema;
  return entry.listFields.filter((field) => {
    const type = schema.path(field);
    return type !== undefined && type.options?.select !== false && field !== "_id" && field !== "id";
  });
}

/** Searchable: every top-level text field (or list of texts) the admin may show. */
export function textFields(entry: AdminEntry): string[] {
  const found: string[] = [];
  entry.model.schema.eachPath((path, type) => {
    if (path.includes(".") || type.options?.select === false) return;
    const element = type.instance === "Array" ? type.getEmbeddedSchemaType() : type;
    // `_id` and bookkeeping fields (`_syncStream`...) are not what anyone searches for.
    if (element?.instance === "String" && !path.startsWith("_")) found.push(path);
  });
  return found;
}

/**
 * The model's name in the admin's operation ids: `Admin` + the model name (`readAdminTodo`,
 * apart from REST's `readTodo`), without doubling a name that already starts with it (the audit
 * log's `AdminAuditLogEntry` → `listAdminAuditLogEntries`).
 */
export function adminOperationName(modelName: string): string {
  return /^Admin[A-Z]/.test(modelName) ? modelName : `Admin${modelName}`;
}
