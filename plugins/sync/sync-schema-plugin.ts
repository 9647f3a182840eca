import type { ClientSession, HydratedDocument, Model, Schema } from "mongoose";
import { markStaleWrite } from "../../contracts/stale-write.js";
import { SyncErrors } from "./errors.js";
import { commitWithRetry, conflictBackoff, drawSeq, holdStreams, isTransientWriteError, SEQUENCING_MAX_ATTEMPTS, trackDraws } from "./sequencing.js";
import { syncBookkeeping } from "./sync-bookkeeping.js";
import { syncBindingOf } from "./synced-model-binding.js";

/**
 * The fields `syncPlugin` adds; both are written by the server only (`readOnly`).
 *
 * @example
 * const todo: TodoFields & SyncFields = await Todo.findById(id).lean();
 * todo._syncSeq; // 7
 */
export interface SyncFields {
  _syncSeq?: number;
  _syncStream?: string;
}

/** A static the compiled model carries only when the plugin ran before `mongoose.model()`. */
export const SYNC_PLUGIN_STATIC = "svcSyncPluginApplied";

/**
 * Every query-level write: each would change documents without drawing a seq, so clients would
 * never hear of it. Synced documents are written one at a time with `save()` (or `/sync/mutate`).
 *
 * @example
 * await Todo.updateMany({}, { done: true }); // throws SYNC_BULK_WRITE_FORBIDDEN
 * for (const todo of await Todo.find({ done: false })) { todo.done = true; await todo.save(); }
 */
export const UNSEQUENCED_WRITES = [
  "updateMany",
  "deleteMany",
  "updateOne",
  "replaceOne",
  "deleteOne",
  "findOneAndUpdate",
  "findOneAndReplace",
  "findOneAndDelete",
] as const;

const OWN_SESSION = "svcSyncOwnSession";
/** Releases the streams this save waits its turn for (held from a conflict until it commits or aborts). */
const OWN_RELEASE = "svcSyncOwnRelease";

type SyncedDocument = HydratedDocument<Record<string, unknown>>;

/**
 * The schema plugin of synced models (SPEC §2.2): every `save()` draws the next seq of the
 * document's stream and stamps `_syncSeq` and `_syncStream`, in one transaction with the write
 * (its own, or the caller's when the document is saved in a transaction). A document whose
 * stream changed also leaves a tombstone with a seq of its old stream, so that stream's clients
 * delete it while the new stream's clients create it. Query-level writes (`updateMany`,
 * `deleteMany`, `bulkWrite`, `insertMany`, `updateOne`...) throw `SYNC_BULK_WRITE_FORBIDDEN`.
 * Apply it before `mongoose.model()`; the stream rule comes from the model router's `sync`
 * option when the app's sync plugin starts.
 *
 * @example
 * const todoSchema = new Schema({ _id: { type: String, description: "Client-minted id" }, title: { type: String, description: "Title" } });
 * todoSchema.plugin(isDeletedPlugin);
 * todoSchema.plugin(syncPlugin);
 * export const Todo = mongoose.model("Todo", todoSchema);
 */
export function syncPlugin(schema: Schema): void {
  schema.add({
    _syncSeq: { type: Number, readOnly: true, description: "Seq of the last write in the document's sync stream (server-managed)" },
    _syncStream: { type: String, readOnly: true, description: "The sync stream the document belongs to (server-managed)" },
  });
  schema.index({ _syncStream: 1, _syncSeq: 1 });
  schema.static(SYNC_PLUGIN_STATIC, () => true);

  for (const operation of UNSEQUENCED_WRITES) {
    schema.pre(operation, { document: true, query: true }, function refuseUnsequenced(this: { modelName?: string; model?: { modelName: string }; constructor: { modelName?: string } }) {
      throw SyncErrors.BULK_WRITE_FORBIDDEN(this.model?.modelName ?? this.constructor.modelName ?? "a synced model", operation);
    });
  }
  schema.pre("bulkWrite", function refuseBulkWrite(this: Model<unknown>) {
    throw SyncErrors.BULK_WRITE_FORBIDDEN(this.modelName, "bulkWrite");
  });
  schema.pre("insertMany", function refuseInsertMany(this: Model<unknown>) {
    throw SyncErrors.BULK_WRITE_FORBIDDEN(this.modelName, "insertMany");
  });

  schema.pre("save", async function stampSyncSeq(this: SyncedDocument) {
    const model = this.constructor as Model<Record<string, unknown>>;
    const binding = syncBindingOf(model);
    if (!binding) throw SyncErrors.MODEL_NOT_BOUND(model.modelName);
    const stream = binding.rule.streamOf(this.toObject({ depopulate: true, virtuals: false, getters: false }) as Record<string, unknown>);
    if (!stream) throw SyncErrors.NO_STREAM(model.modelName, String(this._id));
    // The seq this copy was loaded with (clients cannot write it, so it is the loaded value).
    // Seqs count per stream, so the version of a copy is its (stream, seq) pair.
    const loadedSeq = this.isNew ? undefined : (this.get("_syncSeq") as number | undefined);
    const loadedStream = this.isNew ? undefined : (this.get("_syncStream") as string | undefined);
    const bookkeeping = syncBookkeeping(model.db);
    const entityId = String(this._id);
    const isNew = this.isNew;

    const callerSession = this.$session();
    if (callerSession?.inTransaction()) {
      // The caller's transaction (a sync mutation): it retries the whole write on a conflict.
      const seq = await stamp(callerSession);
      this.set({ _syncSeq: seq, _syncStream: stream });
      return;
    }

    // No transaction: open one for this save alone. The first statement draws the seq, so a
    // conflict can only happen before the document is written, and retrying here is enough.
    const session = await model.db.startSession();
    const drawn = trackDraws(session);
    let release: (() => void) | undefined;
    for (let attempt = 1; ; attempt++) {
      session.startTransaction({ readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } });
      try {
        const seq = await stamp(session);
        this.$locals[OWN_SESSION] = session;
        this.$locals[OWN_RELEASE] = release;
        this.$session(session);
        this.set({ _syncSeq: seq, _syncStream: stream });
        return;
      } catch (error) {
        await session.abortTransaction().catch(() => undefined);
        if (!isTransientWriteError(error) || attempt >= SEQUENCING_MAX_ATTEMPTS) {
          release?.();
          await session.endSession();
          throw error;
        }
        // As inSyncTransaction does: after a conflict, wait for this process's other writers of the stream.
        if (!release && drawn.size > 0) release = await holdStreams([...drawn]);
        else await conflictBackoff(attempt);
      }
    }

    async function stamp(session: ClientSession): Promise<number> {
      const seq = await drawSeq(bookkeeping, stream!, session);
      let moved: string | undefined;
      if (!isNew) {
        // Read after the draw, inside the transaction: a copy loaded before another write
        // committed would otherwise stamp a seq of the wrong stream (optimistic concurrency on
        // `_syncSeq`; a concurrent writer of the same stream already conflicted on the counter).
        const stored = await model.collection.findOne({ _id: entityId } as never, { session, projection: { _syncSeq: 1, _syncStream: 1 } });
        if (!stored || stored._syncSeq !== loadedSeq || stored._syncStream !== loadedStream) throw markStaleWrite(SyncErrors.STALE_DOCUMENT({ detail: `${model.modelName} ${entityId} changed since it was loaded` }));
        const previous = stored._syncStream as string | undefined;
        if (previous !== undefined && previous !== stream) moved = previous;
      }
      if (moved) {
        const leftSeq = await drawSeq(bookkeeping, moved, session, { tombstones: true });
        await bookkeeping.tombstones
          .updateOne({ stream: moved, entityId }, { $set: { seq: leftSeq, collectionName: binding!.collection } }, { upsert: true, session })
          .exec();
      }
      return seq;
    }
  });

  schema.post("save", async function commitOwnTransaction(this: SyncedDocument) {
    const session = this.$locals[OWN_SESSION] as ClientSession | undefined;
    if (!session) return;
    const release = this.$locals[OWN_RELEASE] as (() => void) | undefined;
    delete this.$locals[OWN_SESSION];
    delete this.$locals[OWN_RELEASE];
    this.$session(null);
    try {
      await commitWithRetry(session);
    } finally {
      release?.();
      await session.endSession();
    }
  });

  schema.post("save", function abortOwnTransaction(this: SyncedDocument, error: Error, _doc: unknown, next: (error?: Error) => void) {
    const session = this.$locals[OWN_SESSION] as ClientSession | undefined;
    if (!session) return next(error);
    const release = this.$locals[OWN_RELEASE] as (() => void) | undefined;
    delete this.$locals[OWN_SESSION];
    delete this.$locals[OWN_RELEASE];
    this.$session(null);
    void (async () => {
      if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
      release?.();
      await session.endSession().catch(() => undefined);
    })().then(() => next(error));
  });
}

/** True when `syncPlugin` was applied to the model's schema before the model compiled. */
export function compiledWithSyncPlugin(model: unknown): boolean {
  return typeof (model as Record<string, unknown>)[SYNC_PLUGIN_STATIC] === "function";
}
