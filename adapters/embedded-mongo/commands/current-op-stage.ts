import { Long } from "bson";
import type { Document } from "bson";
import { bsonTypeName } from "../query/index.js";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CursorDescription } from "../cursors/cursor-registry.js";
import type { CommandContext } from "./command-context.js";

/** `$currentOp` options mongod accepts (all booleans). */
const OPTIONS = new Set(["allUsers", "idleConnections", "idleCursors", "idleSessions", "localOps", "backtrace", "truncateOps", "targetAllNodes"]);

/**
 * The `$currentOp` stage (`db.admin().aggregate([{$currentOp: {...}}, ...])`): the operation
 * running it, every `getMore` blocked waiting for data on an awaitData cursor (a change stream)
 * as an active `op` with its `cursor` sub-document, and — with `idleCursors: true` — every idle
 * cursor as an `idleCursor`. Each `cursor` has MongoDB's fields (`cursorId`, `createdDate`,
 * `lastAccessDate`, `nDocsReturned`, `nBatchesReturned`, `noCursorTimeout`, `tailable`,
 * `awaitData`, `originatingCommand`), so a test finds a change stream's cursor id exactly as on
 * mongod and kills it with `killCursors`. Other commands in flight on other connections are not
 * listed. Must run on `admin` with `{aggregate: 1}` as the first stage.
 *
 * @example
 * await engine.runCommand("admin", {aggregate: 1, pipeline: [{$currentOp: {idleCursors: true}}], cursor: {}});
 */
export function currentOpDocuments(ctx: CommandContext, spec: unknown): Document[] {
  if (ctx.db !== "admin" || optionNumber(ctx.command["aggregate"]) !== 1) {
    throw new EngineError(ErrorCodes.InvalidNamespace, "$currentOp must be run against the 'admin' database with {aggregate: 1}");
  }
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw new EngineError(ErrorCodes.FailedToParse, `$currentOp options must be specified in an object, but found: ${bsonTypeName(spec)}`);
  }
  const options = spec as Document;
  for (const [name, value] of Object.entries(options)) {
    if (!OPTIONS.has(name)) throw new EngineError(ErrorCodes.FailedToParse, `Unrecognized option '${name}' in $currentOp stage.`);
    if (typeof value !== "boolean") {
      throw new EngineError(ErrorCodes.FailedToParse, `The '${name}' parameter of the $currentOp stage must be a boolean value, but found: ${bsonTypeName(value)}`);
    }
  }
  const host = ctx.services.advertisedAddress;
  const now = Date.now();
  const out: Document[] = [
    {
      type: "op",
      host,
      desc: `conn${ctx.connection.id}`,
      connectionId: ctx.connection.id,
      client: ctx.connection.remoteAddress,
      active: true,
      opid: 0,
      ...(ctx.lsid ? { lsid: ctx.lsid } : {}),
      secs_running: Long.ZERO,
      microsecs_running: Long.ZERO,
      op: "command",
      ns: "admin.$cmd.aggregate",
      command: ctx.command,
    },
  ];
  for (const cursor of ctx.services.cursors.describeCursors()) {
    const waiting = cursor.waiting;
    if (waiting) {
      const micros = Math.max(0, now - waiting.startedAt) * 1000;
      out.push({
        type: "op",
        host,
        desc: `conn${waiting.connection.id}`,
        connectionId: waiting.connection.id,
        client: waiting.connection.remoteAddress,
        active: true,
        opid: waiting.opId,
        ...(cursor.lsid ? { lsid: cursor.lsid } : {}),
        secs_running: Long.fromNumber(Math.floor(micros / 1e6)),
        microsecs_running: Long.fromNumber(micros),
        op: "getmore",
        ns: cursor.ns,
        command: waiting.command,
        cursor: cursorDocument(cursor),
      });
    } else if (options["idleCursors"] === true) {
      out.push({
        type: "idleCursor",
        host,
        ns: cursor.ns,
        ...(cursor.lsid ? { lsid: cursor.lsid } : {}),
        cursor: cursorDocument(cursor),
      });
    }
  }
  return out;
}

function cursorDocument(cursor: CursorDescription): Document {
  return {
    cursorId: cursor.id,
    createdDate: cursor.createdAt,
    lastAccessDate: cursor.lastAccessAt,
    nDocsReturned: Long.fromNumber(cursor.nDocsReturned),
    nBatchesReturned: Long.fromNumber(cursor.nBatchesReturned),
    noCursorTimeout: cursor.noCursorTimeout,
    tailable: cursor.tailable,
    awaitData: cursor.tailable,
    ...(cursor.originatingCommand ? { originatingCommand: cursor.originatingCommand } : {}),
  };
}
