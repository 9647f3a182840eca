import type { ValidateFunction } from "ajv";
import type { Request } from "express";
import mongoose, { type HydratedDocument } from "mongoose";
import type { ServedModel } from "../../contracts/model-registry.js";
import type { RequestUser } from "../../contracts/request-user.js";
import { isAPIError } from "../../kernel/api-error.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { SvcError } from "../../kernel/errors.js";
import { applyPatch, checkPermissions, hookDenied, mongooseJsonSchema, runHook, type RestMethod } from "../rest/index.js";
import { ajvFor, fromAjvErrors, mongooseValidationIssues, operatorKeys, type ValidationIssue } from "../validation/index.js";
import { mutationIdOf } from "./apply-in-order.js";
import { entityData } from "./entity-shape.js";
import type { StreamMembership } from "./membership.js";
import { nack, type MutationOutcome, type NackCode } from "./nack.js";
import { inSyncTransaction } from "./sequencing.js";
import type { SyncBookkeeping, SyncMutationRecord } from "./sync-bookkeeping.js";
import type { SyncedCollection } from "./synced-collections.js";
import { MUTATION_SCHEMA, type SyncMutation } from "./mutation-schema.js";

type StoredDocument = HydratedDocument<Record<string, unknown>>;

/** Fields a mutation's `data` may never carry: ids, timestamps, deletion, sync bookkeeping. */
const SERVER_FIELDS = ["_id", "id", "__v", "created", "updated", "deleted", "_syncSeq", "_syncStream"];

/** A refusal found inside the transaction: it aborts, and the nack is the answer. */
class Refusal extends Error {
  constructor(readonly outcome: MutationOutcome) {
    super("refused");
  }
}

export interface MutationServiceOptions {
  readonly collections: ReadonlyMap<string, SyncedCollection>;
  readonly membership: StreamMembership;
  readonly bookkeeping: SyncBookkeeping;
  readonly logger: SvcLogger;
}

interface Applied {
  readonly outcome: MutationOutcome;
  readonly after?: () => Promise<unknown>;
}

/**
 * The one code path of synced writes (HTTP now, socket events later): checks the envelope and
 * the data with the shared validators, answers a replayed `mutationId` with its original ack,
 * applies the model router's permissions and hooks as REST does, authorises by stream
 * membership (before and after the write, so nothing moves into a foreign stream), refuses a
 * stale `baseVersion` with a `conflict` nack carrying the server's entity, and writes the
 * document, its seq and the mutation record in one transaction. Deletes are soft.
 *
 * @example
 * const outcome = await mutations.apply(requireUser(req), req.body, req);
 * if ("ack" in outcome) res.json(outcome); else res.status(NACK_STATUS[outcome.nack.code]).json(outcome);
 */
export class MutationService {
  private readonly validateEnvelope: ValidateFunction;
  private readonly dataValidators = new Map<string, ValidateFunction>();

  constructor(private readonly options: MutationServiceOptions) {
    this.validateEnvelope = ajvFor({ coerceTypes: false, removeAdditional: false }).compile(MUTATION_SCHEMA);
  }

  async apply(user: RequestUser, input: unknown, req: Request): Promise<MutationOutcome> {
    const mutationId = mutationIdOf(input);
    const operators = operatorKeys(input);
    if (operators.length > 0) return nack(mutationId, "validation", { message: describe(operators, "operator keys are not allowed") });
    if (!this.validateEnvelope(input)) return nack(mutationId, "validation", { message: describe(fromAjvErrors(this.validateEnvelope.errors ?? [])) });
    // A create without an id gets one here, so every attempt and the taken-id answer use the same.
    const mutation = withId(input as SyncMutation);
    const collection = this.options.collections.get(mutation.collection);
    if (!collection) return nack(mutationId, "not_found", { message: `No synced collection "${mutation.collection}"` });

    // A replay is recognised after the fact: the mutation record (unique `mutationId`) is
    // written in the write's transaction, so a replay's attempt fails (a taken id, a stale
    // `baseVersion`, the record's duplicate key) and nothing of it stays. Whatever an attempt ran
    // into, an existing record answers with the original ack, so an ack costs no extra read.
    const sent = input as SyncMutation;
    const refused = await this.precheck(collection, user, mutation, req);
    if (refused) return (await this.replayOf(user, sent)) ?? refused;

    const streams = new Set(await this.options.membership.streamsOf(user, collection));
    for (let attempt = 1; ; attempt++) {
      try {
        const applied = await inSyncTransaction(collection.model.db, (session) => this.write(collection, user, mutation, streams, req, session));
        await this.runAfter(collection, applied);
        return applied.outcome;
      } catch (error) {
        const replay = await this.replayOf(user, sent).catch(() => undefined);
        if (replay) return replay;
        if (error instanceof Refusal) return error.outcome;
        if (mutation.operation === "create" && isDuplicateKey(error, "_id")) {
          const taken = await this.takenId(collection, mutation, streams);
          // The holder of the id is gone already (removed outside svc): the create may go ahead.
          if (taken || attempt >= 3) return taken ?? nack(mutationId, "error", { message: "The mutation could not be applied" });
          continue;
        }
        if (isDuplicateKey(error, "mutationId")) return nack(mutationId, "error", { message: "The mutation could not be recorded" });
        return this.outcomeOfError(mutationId, error);
      }
    }
  }

  /**
   * The answer to a create whose id is taken: a conflict carrying the entity when the caller can
   * see it (the client created it before, from another device or an earlier session), else a
   * refusal that reveals nothing. Undefined when no document holds the id any more.
   */
  private async takenId(collection: SyncedCollection, mutation: SyncMutation, streams: ReadonlySet<string>): Promise<MutationOutcome | undefined> {
    const holder = (await collection.model.findOne({ _id: mutation.id, deleted: { $in: [true, false, null] } }).exec()) as StoredDocument | null;
    if (!holder) return undefined;
    if (!streams.has(String(holder.get("_syncStream")))) return nack(mutation.mutationId, "forbidden", { message: "This id is taken" });
    return conflictOf(mutation.mutationId, holder);
  }

  /**
   * The checks that need no database: method permissions, the router's throttle (the same budget
   * as REST's), `baseVersion`, the data against the model.
   */
  private async precheck(collection: SyncedCollection, user: RequestUser, mutation: SyncMutation, req: Request): Promise<MutationOutcome | undefined> {
    const { mutationId } = mutation;
    const method = methodOf(mutation.operation);
    const context = { ownerField: collection.registration.ownerField };
    if (!(await checkPermissions(collection.registration.permissions[method] ?? [], method, user, undefined, context))) {
      return nack(mutationId, "forbidden", { message: `${method} is not permitted on ${mutation.collection}` });
    }
    const throttled = await throttleRefusal(collection.registration.served?.()?.throttle, method, { user, ip: req.ip });
    if (throttled) return nack(mutationId, "rate_limited", throttled);
    if (mutation.operation !== "create" && mutation.baseVersion === undefined) {
      return nack(mutationId, "validation", { message: "baseVersion is required for update and delete" });
    }
    if (mutation.operation !== "delete") {
      const invalid = this.checkData(collection, mutation.operation, mutation.data ?? {});
      if (invalid) return nack(mutationId, "validation", { message: invalid });
    }
    return undefined;
  }

  /**
   * The original ack of an applied mutation id (a different user's id is refused, not revealed).
   * `mutation` is as sent: a create that named no id may be a replay of any entity's create.
   */
  private async replayOf(user: RequestUser, mutation: SyncMutation): Promise<MutationOutcome | undefined> {
    const record = await this.options.bookkeeping.mutations.findOne({ mutationId: mutation.mutationId }).lean().exec();
    if (!record) return undefined;
    if (record.userId !== user.id) return nack(mutation.mutationId, "forbidden", { message: "This mutationId belongs to another client" });
    // The id reused for a different write: its ack would tell the client this write was applied,
    // and the client would drop it from its outbox unwritten.
    if (record.collectionName !== mutation.collection || (mutation.id !== undefined && record.entityId !== mutation.id)) {
      return nack(mutation.mutationId, "validation", { message: `This mutationId was already used for ${record.collectionName} ${record.entityId}: send this mutation with a new mutationId` });
    }
    return { ack: { mutationId: record.mutationId, id: record.entityId, seq: record.seq } };
  }

  private checkData(collection: SyncedCollection, mode: "create" | "update", data: Record<string, unknown>): string | undefined {
    const key = `${collection.name}:${mode}`;
    let validate = this.dataValidators.get(key);
    if (!validate) {
      const readOnly = new Set([...SERVER_FIELDS, collection.registration.ownerField]);
      // An owner scope on another field (an assignee) is the client's to set; membership checks it.
      if (collection.rule.kind === "owner" && collection.rule.field !== collection.registration.ownerField) readOnly.delete(collection.rule.field!);
      validate = ajvFor({ coerceTypes: false, removeAdditional: false }).compile(mongooseJsonSchema(collection.model.schema, { mode, readOnlyPaths: readOnly }));
      this.dataValidators.set(key, validate);
    }
    return validate(data) ? undefined : describe(fromAjvErrors(validate.errors ?? []));
  }

  /** The transactional part; repeatable (it reloads what it reads), since a conflict reruns it. */
  private async write(
    collection: SyncedCollection,
    user: RequestUser,
    mutation: SyncMutation,
    streams: ReadonlySet<string>,
    req: Request,
    session: mongoose.ClientSession,
  ): Promise<Applied> {
    const { model, registration, rule } = collection;
    const hooks = registration.hooks as HookSignatures;
    const mutationId = mutation.mutationId;
    const id = mutation.id!;
    const context = { ownerField: registration.ownerField };
    const refuse = (code: NackCode, message: string): never => {
      throw new Refusal(nack(mutationId, code, { message }));
    };
    const conflict = (doc: StoredDocument): never => {
      throw new Refusal(conflictOf(mutationId, doc));
    };
    const mustStayVisible = (doc: StoredDocument) => {
      const stream = rule.streamOf(doc.toObject({ depopulate: true, virtuals: false }) as Record<string, unknown>);
      if (stream === undefined || !streams.has(stream)) refuse("forbidden", "The entity would belong to a stream the caller is not in");
    };
    const allowedOn = async (method: RestMethod, doc: StoredDocument) => {
      const object = doc.toObject({ depopulate: true, virtuals: false }) as Record<string, unknown> & { _id: unknown };
      if (!(await checkPermissions(registration.permissions[method] ?? [], method, user, object, context))) refuse("forbidden", `${method} is not permitted on this entity`);
    };

    let doc: StoredDocument;
    let after: (() => Promise<unknown>) | undefined;
    if (mutation.operation === "create") {
      // Insert first: a taken id fails the insert with a duplicate key (answered in `apply`),
      // which spares every create a lookup.
      let body: Record<string, unknown> = { ...(mutation.data ?? {}) };
      if (model.schema.path(registration.ownerField) !== undefined) body[registration.ownerField] = user.id;
      if (hooks.preCreate) {
        const hooked = await runHook("preCreate", () => hooks.preCreate!(body, req));
        if (hooked === null || hooked === undefined) throw hookDenied("preCreate");
        body = hooked;
      }
      doc = new model({ ...body, _id: id }) as StoredDocument;
      mustStayVisible(doc);
      doc.$session(session);
      await doc.save();
      if (hooks.postCreate) after = () => hooks.postCreate!(doc, req) as Promise<unknown>;
    } else {
      const existing = (await model.findOne({ _id: id, deleted: { $in: [true, false, null] } }).session(session).exec()) as StoredDocument | null;
      const visible = existing !== null && streams.has(String(existing.get("_syncStream")));
      if (!existing || !visible) return refuse("not_found", `No ${collection.name} entity with this id`);
      doc = existing;
      if (mutation.baseVersion !== Number(doc.get("_syncSeq") ?? 0)) return conflict(doc);
      if (doc.get("deleted") === true) return refuse("not_found", `The ${collection.name} entity is deleted`);
      if (mutation.operation === "update") {
        await allowedOn("update", doc);
        const prevDoc = doc.toObject();
        let body: Record<string, unknown> = { ...(mutation.data ?? {}) };
        if (hooks.preUpdate) {
          const hooked = await runHook("preUpdate", () => hooks.preUpdate!(body, req, doc));
          if (hooked === null || hooked === undefined) throw hookDenied("preUpdate");
          body = hooked;
        }
        applyPatch(doc, body);
        mustStayVisible(doc);
        await doc.save();
        const changed = body;
        if (hooks.postUpdate) after = () => hooks.postUpdate!(doc, changed, req, prevDoc) as Promise<unknown>;
      } else {
        await allowedOn("delete", doc);
        if (hooks.preDelete) {
          const allowed = await runHook("preDelete", () => hooks.preDelete!(doc, req));
          if (allowed === null || allowed === undefined) throw hookDenied("preDelete");
        }
        doc.set("deleted", true);
        await doc.save();
        if (hooks.postDelete) after = () => hooks.postDelete!(doc, req) as Promise<unknown>;
      }
    }
    const seq = Number(doc.get("_syncSeq"));
    // Through the driver: the values are the server's own, so mongoose's casting and validation would only cost time.
    const record: SyncMutationRecord & { created: Date } = { mutationId, userId: user.id, collectionName: collection.name, entityId: id, seq, created: new Date() };
    await this.options.bookkeeping.mutations.collection.insertOne(record, { session });
    return { outcome: { ack: { mutationId, id, seq } }, after };
  }

  /** Post hooks run after the commit, once: the write stands whatever they do, so a failure is logged. */
  private async runAfter(collection: SyncedCollection, applied: Applied): Promise<void> {
    if (!applied.after) return;
    try {
      await applied.after();
    } catch (error) {
      this.options.logger.warn(`A post hook of ${collection.registration.modelName} failed after a sync mutation`, { error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Hook refusals, mongoose validation and cast errors become nacks by their meaning; the rest is `error`. */
  private outcomeOfError(mutationId: string, error: unknown): MutationOutcome {
    if (error instanceof mongoose.Error.ValidationError) return nack(mutationId, "validation", { message: describe(mongooseValidationIssues(error)) });
    if (error instanceof mongoose.Error.CastError) return nack(mutationId, "validation", { message: `${error.path}: has the wrong type` });
    if ((error as { code?: unknown }).code === 11000) return nack(mutationId, "validation", { message: "A unique field already has this value" });
    const status = isAPIError(error) || error instanceof SvcError ? error.status : 500;
    const message = status < 500 && error instanceof Error ? ((error as { detail?: string }).detail ?? error.message) : undefined;
    if (status === 401 || status === 403) return nack(mutationId, "forbidden", { message });
    if (status === 404) return nack(mutationId, "not_found", { message });
    if (status === 409) return nack(mutationId, "conflict", { message });
    if (status < 500) return nack(mutationId, "validation", { message });
    this.options.logger.error("A sync mutation failed", { mutationId, error: error instanceof Error ? error.message : String(error) });
    return nack(mutationId, "error", { message: "The mutation could not be applied" });
  }
}

/** The hooks of a model router, with the arguments REST calls them with. */
interface HookSignatures {
  preCreate?: (body: Record<string, unknown>, req: Request) => Record<string, unknown> | null | undefined | Promise<Record<string, unknown> | null | undefined>;
  postCreate?: (doc: StoredDocument, req: Request) => unknown;
  preUpdate?: (body: Record<string, unknown>, req: Request, doc: StoredDocument) => Record<string, unknown> | null | undefined | Promise<Record<string, unknown> | null | undefined>;
  postUpdate?: (doc: StoredDocument, body: Record<string, unknown>, req: Request, prevDoc: unknown) => unknown;
  preDelete?: (doc: StoredDocument, req: Request) => unknown;
  postDelete?: (doc: StoredDocument, req: Request) => unknown;
}

function withId(mutation: SyncMutation): SyncMutation {
  return mutation.id === undefined ? { ...mutation, id: globalThis.crypto.randomUUID() } : mutation;
}

function methodOf(operation: SyncMutation["operation"]): RestMethod {
  return operation;
}

/** A duplicate key error on a unique index over `field`. */
function isDuplicateKey(error: unknown, field: string): boolean {
  const pattern = (error as { code?: unknown; keyPattern?: Record<string, unknown> }).keyPattern;
  return (error as { code?: unknown }).code === 11000 && pattern !== undefined && field in pattern;
}

/** The `conflict` nack of a stored document: the entity as the server has it now. */
function conflictOf(mutationId: string, doc: StoredDocument): MutationOutcome {
  const stored = doc.toObject({ depopulate: true, virtuals: false }) as Record<string, unknown>;
  return nack(mutationId, "conflict", { serverDoc: entityData(stored), serverSeq: Number(stored._syncSeq ?? 0), serverDeleted: stored.deleted === true });
}

/** Issues as one message, at most a few of them (a hostile body must not make a huge answer). */
function describe(issues: readonly ValidationIssue[], suffix?: string): string {
  const shown = issues.slice(0, 5).map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : "";
  return shown.join("; ") + more + (suffix ? ` (${suffix})` : "");
}

/** The throttle's refusal as a `rate_limited` nack's details, or nothing when the mutation may go on. */
async function throttleRefusal(
  throttle: ServedModel["throttle"],
  method: RestMethod,
  caller: { user: RequestUser; ip?: string },
): Promise<{ message: string; retryAfterMs: number } | undefined> {
  if (!throttle) return undefined;
  try {
    await throttle(method, caller);
    return undefined;
  } catch (error) {
    if (!isAPIError(error) || error.status !== 429) throw error;
    const seconds = typeof error.meta?.retryAfterSeconds === "number" ? error.meta.retryAfterSeconds : 1;
    return { message: error.detail ?? "Too many requests", retryAfterMs: seconds * 1000 };
  }
}
