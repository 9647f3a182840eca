import type { Document, Long } from "bson";
import type { EngineServices } from "../engine-services.js";
import type { OplogEntry, WriteOp } from "../storage/write-ops.js";

/** Who sent a command: the TCP connection (or a synthetic one for in-process calls). */
export interface ConnectionInfo {
  /** `connectionId` in `hello`. */
  readonly id: number;
  /** `host:port` of the client, for `whatsmyuri`. */
  readonly remoteAddress: string;
}

/**
 * Everything a command handler gets. Handlers read through `services.storage` and write only via
 * `commit`, which by default applies the ops at once (`Storage.commit`) tagged with the session.
 * The transactions work will hand in-transaction commands a `commit` that buffers instead.
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
  commit(ops: readonly WriteOp[]): readonly OplogEntry[];
}

/** A command implementation. Throw `EngineError` for `{ok: 0}` replies. */
export type CommandHandler = (ctx: CommandContext) => Document | Promise<Document>;
