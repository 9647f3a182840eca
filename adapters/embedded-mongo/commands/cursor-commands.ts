import { Long } from "bson";
import type { Document } from "bson";
import { bsonTypeName } from "../query/index.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandHandler } from "./command-context.js";
import { awaitDurableEvents } from "../change-streams/await-durable-events.js";
import { arrayArgument, countArgument } from "./command-arguments.js";

/** How long a `getMore` on an awaitData cursor waits for data when it sends no `maxTimeMS`. */
export const DEFAULT_AWAIT_DATA_MS = 1000;

/**
 * `getMore`: the next batch of a cursor (all remaining up to 16 MiB when no `batchSize`).
 * Unknown, killed or timed-out cursor → CursorNotFound (43); a cursor whose collection was dropped
 * or renamed since → QueryPlanKilled (175), as on mongod. On a tailable awaitData cursor (a change
 * stream) an empty result waits up to `maxTimeMS` (default 1 s) for new data before answering.
 *
 * @example
 * await engine.runCommand("app", {getMore: cursorId, collection: "todos", batchSize: 100});
 */
export const getMoreCommand: CommandHandler = async (ctx) => {
  const id = ctx.command["getMore"];
  if (!(id instanceof Long)) {
    throw new EngineError(
      ErrorCodes.TypeMismatch,
      `BSON field 'getMore.getMore' is the wrong type '${bsonTypeName(id)}', expected type 'long'`,
    );
  }
  const collection = ctx.command["collection"];
  if (typeof collection !== "string") {
    throw new EngineError(ErrorCodes.TypeMismatch, "BSON field 'getMore.collection' is missing or not a string");
  }
  const cursors = ctx.services.cursors;
  const cursor = cursors.lookup(id);
  if (cursor.collection) {
    const { db, name } = cursor.collection;
    const current = ctx.view.collection(db, name);
    if (current !== cursor.collection || cursor.ns !== `${db}.${name}`) {
      cursors.kill(id);
      throw new EngineError(ErrorCodes.QueryPlanKilled, `collection dropped or renamed while the cursor was open: ${cursor.ns}`);
    }
  }
  const batchSize = countArgument(ctx, "batchSize");
  if (cursor.tailable) {
    // awaitData: maxTimeMS is how long to wait for data (mongod's default: one second).
    const maxTimeMS = countArgument(ctx, "maxTimeMS") || DEFAULT_AWAIT_DATA_MS;
    const batch = await cursors.awaitMore(id, `${ctx.db}.${collection}`, batchSize, maxTimeMS, { command: ctx.command, connection: ctx.connection });
    return { cursor: await awaitDurableEvents(ctx.services, batch), ok: 1 };
  }
  const batch = cursors.getMore(id, `${ctx.db}.${collection}`, batchSize);
  return { cursor: batch, ok: 1 };
};

/** `killCursors`: reports which of the ids existed. */
export const killCursorsCommand: CommandHandler = (ctx) => {
  const ids = arrayArgument(ctx, "cursors");
  const killed: Long[] = [];
  const notFound: Long[] = [];
  for (const id of ids) {
    if (!(id instanceof Long)) throw new EngineError(ErrorCodes.TypeMismatch, "killCursors: cursor ids must be longs");
    (ctx.services.cursors.kill(id) ? killed : notFound).push(id);
  }
  const reply: Document = { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  return reply;
};
