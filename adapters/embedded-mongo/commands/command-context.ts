import type { Document, Long } from "bson";
import type { EngineServices } from "../engine-services.js";
import type { LogicalSession } from "../sessions/logical-session.js";
import type { ReadView } from "../sessions/read-view.js";
import type { Transaction } from "../sessions/transaction.js";
import type { OplogEntry, WriteOp } from "../storage/write-ops.js";

/** Who sent a command: the TCP connection (or a synthetic one for in-process calls). */
export interface ConnectionInfo {
  /** `connectionId` in `hello`. */
  readonly id: number;
  /** `host:port` of the client, for `whatsmyuri`. */
  readonly remoteAddress: string;
  /** Drops the connection without a reply (fault injection's `closeConnection`); absent in-process. */
  readonly close?: (() => void) | undefined;
}

/**
 * Everything a command handler gets. Handlers read collections and documents through `view`
 * (`view.collection(...)`, `prepareCommandQuery(ctx, ...)`) and write only via `commit`.
 * Outside a transaction `view` is committed data and `commit` applies the ops at once
 * (`Storage.commit`) tagged with the session; inside one, `view` is the transaction's snapshot
 * plus its own writes and `commit` buffers the ops until commitTransaction (it returns no
 * entries then). Catalog-wide reads (`listDatabases`, `dbStats`...) may use `services.storage`:
 * transactions refuse those commands.
 */
export interface CommandContext {
  readonly services: EngineServices;
  /** The database the command runs against (`$db`). */
  readonly db: string;
  /** The command document (kind-1 sequences already merged in). */
  readonly command: Document;
  /** The command name as sent (first key). */
  readonly name: string;
  readonly connection: ConnectionInfo;
  readonly lsid: Document | undefined;
  readonly txnNumber: Long | undefined;
  /** The server-side session of `lsid`, if the command carries one. */
  readonly session: LogicalSession | undefined;
  /** The transaction the command is a statement of (`autocommit: false`), if any. */
  readonly transaction: Transaction | undefined;
  /** What the command reads: committed data, or its transaction's view. */
  readonly view: ReadView;
  commit(ops: readonly WriteOp[]): readonly OplogEntry[];
}

/** A command implementation. Throw `EngineError` for `{ok: 0}` replies. */
export type CommandHandler = (ctx: CommandContext) => Document | Promise<Document>;
