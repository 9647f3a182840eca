import { Schema, type Connection, type Model } from "mongoose";

/** A stream's counter: the last seq drawn (SPEC §2.8, unique `stream`). */
export interface SyncCounter {
  stream: string;
  seq: number;
  /** Set once an entity moved out of the stream: only then do snapshots read its tombstones. */
  tombstones?: boolean;
}

/**
 * The delete a stream's clients see when a document moves out of it (owner or tenant changed):
 * one record per (stream, entity), its seq drawn from the old stream in the same transaction as
 * the move. The document itself then appears in its new stream as a create.
 */
export interface SyncTombstone {
  stream: string;
  collectionName: string;
  entityId: string;
  seq: number;
}

/** One applied mutation and its ack (unique `mutationId`: a replay answers this ack again). */
export interface SyncMutationRecord {
  mutationId: string;
  userId: string;
  collectionName: string;
  entityId: string;
  seq: number;
}

/** A user's key material for web clients' local encryption (32 random bytes, base64). */
export interface SyncKeyRecord {
  userId: string;
  keyMaterial: string;
}

/** The sync plugin's own collections on one connection. */
export interface SyncBookkeeping {
  readonly counters: Model<SyncCounter>;
  readonly tombstones: Model<SyncTombstone>;
  readonly mutations: Model<SyncMutationRecord>;
  readonly keys: Model<SyncKeyRecord>;
}

const OPTIONS = { strict: "throw" as const, versionKey: false as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };

const counterSchema = new Schema<SyncCounter>(
  {
    stream: { type: String, required: true, unique: true, description: "Stream key, e.g. todos|owner:u1" },
    seq: { type: Number, required: true, default: 0, description: "Last seq drawn in this stream" },
    tombstones: { type: Boolean, description: "Whether an entity ever moved out of this stream (it has tombstones)" },
  },
  { ...OPTIONS, collection: "svc_sync_counters" },
);

const tombstoneSchema = new Schema<SyncTombstone>(
  {
    stream: { type: String, required: true, description: "The stream the entity left" },
    collectionName: { type: String, required: true, description: "The synced collection" },
    entityId: { type: String, required: true, description: "The entity's id" },
    seq: { type: Number, required: true, description: "Seq of the move in the old stream" },
  },
  { ...OPTIONS, collection: "svc_sync_tombstones" },
);
tombstoneSchema.index({ stream: 1, entityId: 1 }, { unique: true });
tombstoneSchema.index({ stream: 1, seq: 1 });

const mutationSchema = new Schema<SyncMutationRecord>(
  {
    mutationId: { type: String, required: true, unique: true, description: "The client's mutation id" },
    userId: { type: String, required: true, description: "Who sent it" },
    collectionName: { type: String, required: true, description: "The synced collection" },
    entityId: { type: String, required: true, description: "The entity written" },
    seq: { type: Number, required: true, description: "The seq of the write (the ack's seq)" },
  },
  { ...OPTIONS, collection: "svc_sync_mutations", timestamps: { createdAt: "created", updatedAt: false } },
);

const keySchema = new Schema<SyncKeyRecord>(
  {
    userId: { type: String, required: true, unique: true, description: "The key's user" },
    keyMaterial: { type: String, required: true, description: "32 random bytes, base64" },
  },
  { ...OPTIONS, collection: "svc_sync_keys" },
);

/**
 * The bookkeeping models on a connection (compiled once per connection; the schema plugin finds
 * them from the document being saved, so they always live beside the synced data).
 *
 * @example
 * const { counters } = syncBookkeeping(Todo.db);
 * await counters.findOne({ stream: "todos|owner:u1" });
 */
export function syncBookkeeping(connection: Connection): SyncBookkeeping {
  const model = <T>(name: string, schema: Schema<T>): Model<T> =>
    ((connection.models[name] as unknown) ?? connection.model(name, schema)) as Model<T>;
  return {
    counters: model("SvcSyncCounter", counterSchema),
    tombstones: model("SvcSyncTombstone", tombstoneSchema),
    mutations: model("SvcSyncMutation", mutationSchema),
    keys: model("SvcSyncKey", keySchema),
  };
}

/** Creates the bookkeeping collections and their unique indexes (before the first write). */
export async function initSyncBookkeeping(connection: Connection): Promise<SyncBookkeeping> {
  const bookkeeping = syncBookkeeping(connection);
  for (const model of Object.values(bookkeeping) as Model<unknown>[]) {
    await model.createCollection().catch(() => undefined);
    await model.init();
  }
  return bookkeeping;
}
