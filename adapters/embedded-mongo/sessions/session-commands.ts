import { UUID } from "bson";
import type { Document } from "bson";
import { isPlainDocument } from "../commands/command-arguments.js";
import type { CommandContext, CommandHandler } from "../commands/command-context.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { LOGICAL_SESSION_TIMEOUT_MINUTES } from "./logical-session.js";

/**
 * `startSession`: a new server-side session `{id: {id: UUID}, timeoutMinutes}` (drivers make
 * their own ids; this is for shells and tests).
 *
 * @example
 * await engine.runCommand("admin", {startSession: 1}); // {id: {id: UUID(...)}, timeoutMinutes: 30, ok: 1}
 */
export const startSessionCommand: CommandHandler = (ctx) => {
  const id = { id: new UUID() };
  ctx.services.sessions.touch(id);
  return { id, timeoutMinutes: LOGICAL_SESSION_TIMEOUT_MINUTES, ok: 1 };
};

/**
 * `endSessions: [{id}, ...]` (sent by drivers when a client closes) and `killSessions`: each
 * session's transaction is aborted, its cursors killed, and the session forgotten.
 *
 * @example
 * await engine.runCommand("admin", {endSessions: [{id: uuid}]});
 */
export const endSessionsCommand: CommandHandler = (ctx) => {
  ctx.services.sessions.end(sessionList(ctx));
  return { ok: 1 };
};

/**
 * `refreshSessions: [{id}, ...]`: keeps sessions from expiring.
 *
 * @example
 * await engine.runCommand("admin", {refreshSessions: [{id: uuid}]});
 */
export const refreshSessionsCommand: CommandHandler = (ctx) => {
  ctx.services.sessions.refresh(sessionList(ctx));
  return { ok: 1 };
};

/**
 * `killAllSessions: [users]` and `killAllSessionsByPattern: [patterns]`: the engine has no users,
 * so every session goes, except that patterns naming `lsid`s kill just those sessions.
 *
 * @example
 * await engine.runCommand("admin", {killAllSessions: []});
 */
export const killAllSessionsCommand: CommandHandler = (ctx) => {
  const patterns = arrayOf(ctx);
  const lsids = patterns.filter(isPlainDocument).map((pattern) => pattern["lsid"]).filter(isPlainDocument);
  if (ctx.name === "killAllSessionsByPattern" && lsids.length > 0 && lsids.length === patterns.length) {
    ctx.services.sessions.end(lsids);
  } else {
    ctx.services.sessions.killAll();
  }
  return { ok: 1 };
};

/**
 * `commitTransaction` (admin, `autocommit: false`): applies the transaction atomically; a retry
 * after success answers ok again. Outside a transaction → CommandFailed (125).
 *
 * @example
 * await engine.runCommand("admin", {commitTransaction: 1, lsid, txnNumber, autocommit: false});
 */
export const commitTransactionCommand: CommandHandler = (ctx) => {
  if (ctx.session === undefined || ctx.transaction === undefined) {
    throw new EngineError(ErrorCodes.CommandFailed, "commitTransaction must be run within a transaction");
  }
  ctx.services.sessions.commit(ctx.session, ctx.transaction);
  return { ok: 1 };
};

/**
 * `abortTransaction` (admin, `autocommit: false`): discards the transaction's writes. An aborted
 * transaction → NoSuchTransaction (251), a committed one → TransactionCommitted (256).
 *
 * @example
 * await engine.runCommand("admin", {abortTransaction: 1, lsid, txnNumber, autocommit: false});
 */
export const abortTransactionCommand: CommandHandler = (ctx) => {
  if (ctx.transaction === undefined) {
    throw new EngineError(ErrorCodes.CommandFailed, "abortTransaction must be run within a transaction");
  }
  ctx.services.sessions.abort(ctx.transaction, "abortTransaction");
  return { ok: 1 };
};

function sessionList(ctx: CommandContext): Document[] {
  return arrayOf(ctx).filter(isPlainDocument);
}

function arrayOf(ctx: CommandContext): unknown[] {
  const value = ctx.command[ctx.name];
  if (!Array.isArray(value)) {
    throw new EngineError(ErrorCodes.TypeMismatch, `BSON field '${ctx.name}' is the wrong type, expected type 'array'`);
  }
  return value;
}
