import type { RecordDeleted } from "./admin-model-router.js";
import type { Request, RequestHandler, Router } from "express";
import type { HydratedDocument, Schema } from "mongoose";
import type { SchemaObject } from "openapi3-ts/oas31";
import { DatabaseErrors } from "../../adapters/database/errors.js";
import { HttpErrors } from "../../kernel/http-errors.js";
import { applyPatch, mongooseJsonSchema, RestErrors, retryStaleWrite, saveLoaded, usesSoftDelete, type ModelRouter, type SaveOutcome } from "../rest/index.js";
import { operatorKeys, requestValidationError, validateRequestBody, ValidationErrors } from "../validation/index.js";
import type { AdminAccessPolicy } from "./admin-access.js";
import type { BulkResult } from "./admin-api-shapes.js";
import type { AdminEntry } from "./admin-entry.js";
import type { AuditLog } from "./audit-log.js";
import { AdminErrors } from "./errors.js";

/**
 * Most records one bulk operation may name (more → 400).
 *
 * @example
 * for (let start = 0; start < ids.length; start += MAX_BULK_IDS) await bulkDelete(ids.slice(start, start + MAX_BULK_IDS));
 */
export const MAX_BULK_IDS = 500;

const STRING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type Fields = Record<string, unknown>;
type StoredDocument = HydratedDocument<Fields>;

/** The bodies of the bulk routes: `{ids}` and `{ids, data}`. */
export function bulkSchemas(entry: AdminEntry, router: ModelRouter<Fields>): { update: SchemaObject; remove: SchemaObject } {
  const ids: SchemaObject = {
    type: "array",
    minItems: 1,
    maxItems: MAX_BULK_IDS,
    uniqueItems: true,
    description: `The records' ids (1 to ${MAX_BULK_IDS})`,
    items: router.analysis.objectIdKeys ? { type: "string", pattern: "^[0-9a-fA-F]{24}$" } : { type: "string", pattern: STRING_ID.source },
  };
  const data = mongooseJsonSchema(entry.model.schema, { mode: "update", readOnlyPaths: new Set([...router.analysis.readOnlyPaths, "_id"]) });
  return {
    update: { type: "object", required: ["ids", "data"], additionalProperties: false, properties: { ids, data: { ...data, description: "The changes, as a PATCH body" } } },
    remove: { type: "object", required: ["ids"], additionalProperties: false, properties: { ids } },
  };
}

/**
 * `POST {basePath}{routePath}/bulk-update` (`{ids, data}`) and `/bulk-delete` (`{ids}`): at most
 * 500 records, all-or-nothing on authorisation — every record is loaded and checked with the
 * same rules as a single update or delete (object checks, `writeOwned` ownership, `authorize`)
 * before anything is written; one missing or refused record refuses the whole request (403
 * `ADMIN_BULK_REFUSED`, `meta.results` naming each), and the changes are validated on every
 * record (and against the model's unique indexes, across the batch) before the first is saved.
 * Answers `{data: {results: [{id, status}], count}}`; every write goes to the audit log, also
 * those before a save that fails part-way.
 *
 * @example
 * mountBulkRoutes(router, entry, modelRouter, access, audit);
 */
export function mountBulkRoutes(http: Router, entry: AdminEntry, router: ModelRouter<Fields>, access: AdminAccessPolicy, audit: AuditLog, recordDeleted?: RecordDeleted): void {
  const schemas = bulkSchemas(entry, router);
  const readOnly = router.analysis.readOnlyPaths;
  const writable = new Set(Object.keys((schemas.update.properties?.data as SchemaObject | undefined)?.properties ?? {}));
  const softDelete = usesSoftDelete(entry.model.schema);
  const store = entry.model;

  // Before the schema, which would strip what it does not declare: REST refuses these outright.
  const refuseOperators: RequestHandler = (req, _res, next) => {
    const issues = operatorKeys(req.body);
    if (issues.length > 0) throw requestValidationError(issues, "body", ValidationErrors.OPERATOR_IN_BODY);
    const data = (req.body as { data?: unknown } | undefined)?.data;
    const readOnlyKeys = data && typeof data === "object" && !Array.isArray(data) ? Object.keys(data).filter((key) => readOnly.has(key)) : [];
    if (readOnlyKeys.length > 0) {
      const readOnlyIssues = readOnlyKeys.map((key) => ({ path: `data.${key}`, message: "is set by the server and cannot be written", keyword: "readOnly" }));
      throw requestValidationError(readOnlyIssues, "body", ValidationErrors.READ_ONLY_FIELD);
    }
    // As a PATCH refuses them (the app's validator would strip them, answering 200 for nothing
    // written): a field the model does not have, or a dotted path (`roles.0`).
    const unknownKeys = data && typeof data === "object" && !Array.isArray(data) ? Object.keys(data).filter((key) => !writable.has(key)) : [];
    if (unknownKeys.length > 0) {
      const unknownIssues = unknownKeys.map((key) => ({ path: `data.${key}`, message: "is not a field of this resource", keyword: "additionalProperties" }));
      throw requestValidationError(unknownIssues, "body", ValidationErrors.UNKNOWN_FIELD);
    }
    next();
  };
  const allow = (action: "update" | "delete"): RequestHandler => async (req, _res, next) => {
    if (!req.user) throw HttpErrors.UNAUTHENTICATED({ detail: `bulk ${action} on ${entry.modelName} requires authentication` });
    if (!(await access.decide(entry, action, req.user))) throw HttpErrors.FORBIDDEN({ detail: `bulk ${action} is not permitted on ${entry.modelName}` });
    next();
  };

  /** Loads every named record and checks each; throws before any write when one fails. */
  async function authorisedRecords(req: Request, action: "update" | "delete"): Promise<StoredDocument[]> {
    const ids = (req.body as { ids: string[] }).ids;
    const docs = await store.find({ _id: { $in: ids } }).exec();
    const byId = new Map(docs.map((doc) => [String(doc._id), doc]));
    const refused: BulkResult[] = [];
    const ordered: StoredDocument[] = [];
    for (const id of ids) {
      const doc = byId.get(id);
      if (!doc) {
        refused.push({ id, status: 404, code: RestErrors.NOT_FOUND.code });
        continue;
      }
      if (!(await access.decide(entry, action, req.user, doc.toObject() as Fields))) {
        refused.push({ id, status: 403, code: HttpErrors.FORBIDDEN.code });
        continue;
      }
      ordered.push(doc);
    }
    if (refused.length > 0) {
      throw AdminErrors.BULK_REFUSED({ detail: `${refused.length} of ${ids.length} records cannot be ${action}d by this caller; nothing was written`, meta: { results: refused } });
    }
    return ordered;
  }

  /**
   * Saves a loaded, changed record as a PATCH or DELETE does (`saveLoaded` in `retryStaleWrite`,
   * in the same turn as the REST routes' writes of it): deleted meanwhile, it is "gone"; changed
   * meanwhile (an array: mongoose's version check; a synced record: its seq), the change is redone
   * on a fresh copy, checked again.
   */
  function saveChanged(req: Request, action: "update" | "delete", change: (doc: StoredDocument) => Promise<void>) {
    return (loaded: StoredDocument): Promise<SaveOutcome> => {
      let doc: StoredDocument | undefined;
      return retryStaleWrite(`${store.modelName}:${String(loaded._id)}`, async () => {
        if (doc === undefined) doc = loaded;
        else {
          const fresh = await store.findOne({ _id: loaded._id }).exec();
          if (!fresh) return "gone";
          if (!(await access.decide(entry, action, req.user, fresh.toObject() as Fields))) {
            throw HttpErrors.FORBIDDEN({ detail: `${action} is no longer permitted on ${entry.modelName} ${String(loaded._id)}` });
          }
          await change(fresh);
          doc = fresh;
        }
        return saveLoaded(doc, { softDelete });
      });
    };
  }

  http.post(`${entry.fullPath}/bulk-update`, allow("update"), refuseOperators, validateRequestBody(schemas.update), async (req, res) => {
    const data = (req.body as { data: Fields }).data;
    await access.checkFields(entry, req.user, data);
    const docs = await authorisedRecords(req, "update");
    for (const doc of docs) applyPatch(doc, data);
    // Every record validates before the first is saved, so a bad value writes nothing.
    for (const doc of docs) await doc.validate();
    const shared = sharedUniqueFields(entry.model.schema, docs, data);
    if (shared) throw DatabaseErrors.DUPLICATE_KEY({ detail: `The change would give ${docs.length} records the same ${shared.join(", ")}, which must be unique; nothing was written`, meta: { fields: shared } });
    const update = saveChanged(req, "update", async (doc) => {
      applyPatch(doc, data);
      await doc.validate();
    });
    const outcome = await writeAll(docs, update, (written) =>
      audit.record(req.user, "update", entry.modelName, written.map((doc) => ({ id: doc._id, fields: Object.keys(data) })), true));
    res.json({ data: { results: docs.map((doc) => resultOf(doc, outcome, 200)), count: outcome.written.length } });
  });

  http.post(`${entry.fullPath}/bulk-delete`, allow("delete"), refuseOperators, validateRequestBody(schemas.remove), async (req, res) => {
    const docs = await authorisedRecords(req, "delete");
    const softRemove = saveChanged(req, "delete", async (doc) => void doc.set("deleted", true));
    const remove = async (doc: StoredDocument): Promise<SaveOutcome> => {
      if (softDelete) return softRemove(doc.set("deleted", true));
      return (await doc.deleteOne()).deletedCount === 0 ? "gone" : "saved";
    };
    const outcome = await writeAll(docs, remove, (written) =>
      audit.record(req.user, "delete", entry.modelName, written.map((doc) => ({ id: doc._id, fields: [] })), true));
    if (recordDeleted) for (const doc of outcome.written) await recordDeleted(doc.toObject({ depopulate: true, virtuals: false }) as Fields & { _id: unknown });
    res.json({ data: { results: docs.map((doc) => resultOf(doc, outcome, 204)), count: outcome.written.length } });
  });
}

/**
 * Writes each record in turn, then audits those written — also when a later write fails (a
 * conflict with a record outside the batch, the database going away): what was written stays
 * written, and the audit log must say so. A record deleted meanwhile is neither written nor audited.
 */
async function writeAll(
  docs: readonly StoredDocument[],
  write: (doc: StoredDocument) => Promise<SaveOutcome>,
  record: (written: StoredDocument[]) => Promise<void>,
): Promise<{ written: StoredDocument[]; gone: Set<StoredDocument> }> {
  const written: StoredDocument[] = [];
  const gone = new Set<StoredDocument>();
  try {
    for (const doc of docs) {
      if ((await write(doc)) === "gone") gone.add(doc);
      else written.push(doc);
    }
  } finally {
    await record(written);
  }
  return { written, gone };
}

/** A record's line in the answer: the route's success status, or 404 for one deleted meanwhile. */
function resultOf(doc: StoredDocument, outcome: { gone: ReadonlySet<StoredDocument> }, status: number): BulkResult {
  const id = String(doc._id);
  return outcome.gone.has(doc) ? { id, status: 404, code: RestErrors.NOT_FOUND.code } : { id, status };
}

/**
 * The fields of a unique index the change touches that two of the (patched) records would share:
 * the second save would fail after the first was written, so the request is refused before any.
 * Sparse and partial indexes ignore records without the fields (a partial index's filter is not
 * evaluated: records it leaves out are still counted, so such a change is refused, never half-done).
 */
function sharedUniqueFields(schema: Schema, docs: readonly StoredDocument[], data: Fields): string[] | undefined {
  if (docs.length < 2) return undefined;
  const touched = new Set(Object.keys(data).map((key) => key.split(".")[0]!));
  for (const [fields, options] of schema.indexes()) {
    if (options?.unique !== true) continue;
    const paths = Object.keys(fields);
    if (!paths.some((path) => touched.has(path.split(".")[0]!))) continue;
    const seen = new Set<string>();
    for (const doc of docs) {
      const values = paths.map((path) => doc.get(path) ?? null);
      if ((options.sparse === true || options.partialFilterExpression !== undefined) && values.every((value) => value === null)) continue;
      const key = JSON.stringify(values);
      if (seen.has(key)) return paths;
      seen.add(key);
    }
  }
  return undefined;
}

