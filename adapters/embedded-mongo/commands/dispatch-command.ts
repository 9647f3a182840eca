import { Binary, Long } from "bson";
import type { Document, Timestamp } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { EngineServices } from "../engine-services.js";
import { addInjectedWriteConcernError, injectFaultsBefore } from "../fail-points/inject-faults.js";
import type { LogicalSession } from "../sessions/logical-session.js";
import { retryableWriteName } from "../sessions/retryable-write-record.js";
import {
  failTransactionStatement,
  openTransactionStatement,
  settleTransactionStatement,
  transactionCommand,
} from "../sessions/transaction-statement.js";
import { assertValidDatabaseName } from "../storage/namespace.js";
import type { WriteOp } from "../storage/write-ops.js";
import { AUTHENTICATION_COMMANDS } from "./authentication-commands.js";
import type { CommandContext, CommandHandler, ConnectionInfo } from "./command-context.js";

/** Fixed all-zero signature: the engine has no keys, and drivers only gossip it back. */
const EMPTY_SIGNATURE = Object.freeze({ hash: new Binary(Buffer.alloc(20)), keyId: Long.ZERO });

export interface DispatchOptions {
  readonly services: EngineServices;
  readonly handlers: ReadonlyMap<string, CommandHandler>;
  /** Awaited before replying to a command that committed writes (the journal's flush hook). */
  readonly durabilityBarrier?: (() => Promise<void>) | undefined;
}

/**
 * Runs one command the way mongod's service entry point does: finds the handler by the first
 * field's name (unknown → CommandNotFound 59), resolves its session (a transaction statement, a
 * retryable write or a plain command: see `runHandler`), runs it, turns an `EngineError` into
 * `{ok: 0, errmsg, code, codeName, errorLabels?}` and decorates every reply with `$clusterTime`
 * and `operationTime`, as a replica-set member does. Unexpected exceptions become InternalError
 * (1) and are logged, so a bug in one command can never take the server down.
 *
 * @example
 * await dispatchCommand(options, "app", {find: "todos", filter: {}}, connection); // {cursor, ok: 1, ...}
 */
export async function dispatchCommand(
  options: DispatchOptions,
  db: string,
  command: Document,
  connection: ConnectionInfo,
): Promise<Document> {
  const { services } = options;
  const storage = services.storage;
  const before = storage.oplog.latest();
  let reply: Document;
  try {
    reply = await runHandler(options, db, command, connection);
    if (services.failPoints.armed) reply = addInjectedWriteConcernError(services, { db, name: Object.keys(command)[0]!, command, connection }, reply);
  } catch (error) {
    reply = errorReply(error, services, command);
  }
  const latest = storage.oplog.latest();
  const wrote = latest !== before;
  if (wrote && options.durabilityBarrier) {
    try {
      await options.durabilityBarrier();
    } catch (error) {
      services.logger.error("embedded-mongo: durability barrier failed", error);
      reply = new EngineError(ErrorCodes.InternalError, `write could not be made durable: ${(error as Error).message}`).toReply();
    }
  }
  const clusterTime: Timestamp = storage.clock.current();
  reply["$clusterTime"] = { clusterTime, signature: EMPTY_SIGNATURE };
  reply["operationTime"] = wrote && latest ? latest.ts : clusterTime;
  return reply;
}

/**
 * Resolves the command's session and runs it in one of three ways: as a statement of a
 * multi-document transaction (`autocommit: false`: transaction view, buffered writes), as a
 * retryable write (`lsid` + `txnNumber` on insert/update/delete/findAndModify: a retry of an
 * executed `txnNumber` gets the recorded reply and writes nothing), or plainly.
 */
async function runHandler(options: DispatchOptions, db: string, command: Document, connection: ConnectionInfo): Promise<Document> {
  const name = Object.keys(command)[0];
  if (name === undefined) throw new EngineError(ErrorCodes.CommandNotFound, "no such command: ''");
  const handler = options.handlers.get(name);
  if (!handler) throw new EngineError(ErrorCodes.CommandNotFound, `no such command: '${name}'`);
  // PLAIN, X.509, AWS... authenticate against `$external`, which is no database name.
  if (!AUTHENTICATION_COMMANDS.has(name)) assertValidDatabaseName(db);
  const { services } = options;
  if (command["client"] !== undefined) services.failPoints.noteHandshake(connection, command);
  // Before the session step, as mongod: an injected error neither starts nor aborts a transaction.
  if (services.failPoints.armed) await injectFaultsBefore(services, { db, name, command, connection });
  const lsid = isDocument(command["lsid"]) ? command["lsid"] : undefined;
  const txnNumber = command["txnNumber"] instanceof Long ? command["txnNumber"] : undefined;
  const sessions = services.sessions;
  const session = lsid !== undefined ? sessions.touch(lsid) : undefined;
  if (command["autocommit"] !== undefined || command["startTransaction"] !== undefined) {
    const transaction = openTransactionStatement(sessions, session, txnNumber, name, db, command);
    const ctx: CommandContext = {
      services,
      db,
      command: transactionCommand(name, command),
      name,
      connection,
      lsid,
      txnNumber,
      session,
      transaction,
      view: transaction.view,
      commit: (ops: readonly WriteOp[]) => transaction.stage(ops),
    };
    let reply: Document;
    try {
      reply = await invoke(handler, ctx);
    } catch (error) {
      throw failTransactionStatement(sessions, transaction, error);
    }
    return settleTransactionStatement(sessions, transaction, reply);
  }
  const retryable = session !== undefined && txnNumber !== undefined ? retryableWriteName(name) : undefined;
  if (retryable !== undefined) {
    const retried = sessions.retryableWriteReply(session!, txnNumber!, retryable, command);
    if (retried !== undefined) return retried;
  }
  const ctx = committedContext(services, db, command, name, connection, lsid, txnNumber, session);
  const reply = await invoke(handler, ctx);
  if (retryable !== undefined) sessions.recordRetryableWrite(session!, txnNumber!, retryable, reply);
  return reply;
}

function committedContext(
  services: EngineServices,
  db: string,
  command: Document,
  name: string,
  connection: ConnectionInfo,
  lsid: Document | undefined,
  txnNumber: Long | undefined,
  session: LogicalSession | undefined,
): CommandContext {
  const storage = services.storage;
  return {
    services,
    db,
    command,
    name,
    connection,
    lsid,
    txnNumber,
    session,
    transaction: undefined,
    view: services.sessions.committedView,
    commit: (ops: readonly WriteOp[]) =>
      storage.commit({ ops, ...(lsid !== undefined ? { lsid } : {}), ...(txnNumber !== undefined ? { txnNumber } : {}) }),
  };
}

async function invoke(handler: CommandHandler, ctx: CommandContext): Promise<Document> {
  const reply = await handler(ctx);
  if (!("ok" in reply)) reply["ok"] = 1;
  return reply;
}

function errorReply(error: unknown, services: EngineServices, command: Document): Document {
  if (error instanceof EngineError) return error.toReply();
  services.logger.error(`embedded-mongo: command ${Object.keys(command)[0] ?? "?"} failed unexpectedly`, error);
  const message = error instanceof Error ? error.message : String(error);
  return new EngineError(ErrorCodes.InternalError, `internal error: ${message}`).toReply();
}

function isDocument(value: unknown): value is Document {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}
