import type { Document, Long } from "bson";
import type { ConnectionInfo } from "../commands/command-context.js";
import type { CollectionData } from "../storage/collection-data.js";
import type { StoredRecord } from "../storage/stored-record.js";
import type { TailableSource } from "./tailable-source.js";

/** What a cursor yields: stored records (serialized once, cached) or computed documents. */
export type CursorItem = StoredRecord | Document;

/**
 * An open server-side cursor: a suspended result iterator plus the bookkeeping `getMore` needs.
 * Cursors belong to one namespace; a `getMore` naming another one is refused.
 */
export interface ServerCursor {
  /** Zero until the cursor outlives its first batch and is registered. */
  id: Long;
  /** `db.collection` (for command cursors such as listCollections: `db.$cmd.listCollections`). */
  readonly ns: string;
  readonly source: Iterator<CursorItem, unknown, undefined>;
  /** Applied to each document on its way out (find projections). */
  readonly transform?: ((doc: Document) => Document) | undefined;
  /** Documents still allowed by `limit` (Infinity when unlimited). */
  remaining: number;
  /** An item pulled from `source` that did not fit in the previous batch's 16 MiB. */
  pending?: CursorItem | undefined;
  lastUsed: number;
  /** `equalityKey(lsid.id)`: `endSessions` kills the session's cursors. */
  readonly sessionKey?: string | undefined;
  /** The collection read, if any: dropping or renaming it kills the cursor (QueryPlanKilled). */
  readonly collection?: CollectionData | undefined;
  /** `noCursorTimeout`: never reaped for idleness (still killed with its session or explicitly). */
  readonly noTimeout?: boolean | undefined;
  /** Called when the cursor is closed for any reason. */
  readonly onClose?: (() => void) | undefined;
  /** Tailable awaitData cursors (change streams) read from this instead of `source`. */
  readonly tailable?: TailableSource | undefined;
  /** The command that opened the cursor (`$currentOp`'s `cursor.originatingCommand`). */
  readonly originatingCommand?: Document | undefined;
  /** The session document (`$currentOp`'s `lsid`). */
  readonly lsid?: Document | undefined;
  /** When the cursor was opened (ms since the epoch). */
  readonly createdAt: number;
  nDocsReturned: number;
  nBatchesReturned: number;
  /** Set while a `getMore` is waiting for data: the cursor is in use (never idle). */
  waiting?: CursorWait | undefined;
}

/** A `getMore` blocked in an awaitData wait (shown by `$currentOp` as an active operation). */
export interface CursorWait {
  readonly opId: number;
  readonly command: Document;
  readonly connection: ConnectionInfo;
  readonly startedAt: number;
  /** Ends the wait at once (the cursor is being killed). */
  cancel(): void;
}
