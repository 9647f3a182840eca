import { deserialize, Long, serialize, UUID } from "bson";
import type { Document } from "bson";
import type { Engine } from "../engine.js";

/**
 * A driver-like session for in-process engine tests: it stamps commands with `lsid`, `txnNumber`,
 * `autocommit: false` and (on a transaction's first command only) `startTransaction: true`, the
 * way the `mongodb` driver does, so tests can script exact server-side sequences.
 *
 * @example
 * const session = new TestSession(engine);
 * session.startTransaction();
 * await session.run("app", {insert: "a", documents: [{_id: 1}]});
 * await session.commit(); // {ok: 1}
 */
export class TestSession {
  readonly lsid: Document = { id: new UUID() };
  txnNumber = 0;
  private starting = false;

  constructor(readonly engine: Engine) {}

  /** Begins a new transaction (client-side only, like the driver: nothing is sent yet). */
  startTransaction(): void {
    this.txnNumber += 1;
    this.starting = true;
  }

  /** Runs a command in the current transaction; the reply comes back with JS numbers. */
  async run(db: string, command: Document, extra: Document = {}): Promise<Document> {
    const stamped: Document = { ...command, lsid: this.lsid, txnNumber: Long.fromNumber(this.txnNumber), autocommit: false, ...extra };
    if (this.starting) stamped["startTransaction"] = true;
    this.starting = false;
    return plain(await this.engine.runCommand(db, stamped));
  }

  commit(): Promise<Document> {
    return this.run("admin", { commitTransaction: 1 });
  }

  abort(): Promise<Document> {
    return this.run("admin", { abortTransaction: 1 });
  }

  /** A retryable write: `lsid` + the given (or next) `txnNumber`, no `autocommit`. */
  async retryableWrite(db: string, command: Document, txnNumber?: number): Promise<Document> {
    if (txnNumber === undefined) this.txnNumber += 1;
    const number = txnNumber ?? this.txnNumber;
    return plain(await this.engine.runCommand(db, { ...command, lsid: this.lsid, txnNumber: Long.fromNumber(number) }));
  }
}

/**
 * Runs a command with no session and returns the reply with JS numbers, as the driver sees it.
 *
 * @example
 * const reply = await runPlain(engine, "app", {find: "a"});
 */
export async function runPlain(engine: Engine, db: string, command: Document): Promise<Document> {
  return plain(await engine.runCommand(db, command));
}

/**
 * The documents of a collection as committed data shows them (a find outside any session).
 *
 * @example
 * await committedDocuments(engine, "app", "a"); // [{_id: 1, ...}]
 */
export async function committedDocuments(engine: Engine, db: string, collection: string, filter: Document = {}): Promise<Document[]> {
  const reply = await runPlain(engine, db, { find: collection, filter, sort: { _id: 1 } });
  return reply["cursor"]["firstBatch"] as Document[];
}

function plain(reply: Document): Document {
  return deserialize(serialize(reply));
}
