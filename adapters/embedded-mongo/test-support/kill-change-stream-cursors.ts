import type { MongoClient } from "mongodb";

/**
 * Kills the server-side cursor of every change stream open on `ns` ("db.collection"; database
 * streams are "db.$cmd.aggregate", cluster streams "admin.$cmd.aggregate"), the way one does on a
 * real MongoDB: `$currentOp` lists the cursor (idle, or with a `getMore` waiting on it) with its
 * originating `$changeStream` command, and `killCursors` kills it by id. The driver then resumes
 * the stream from its resume token. Returns how many cursors were killed.
 *
 * On the embedded engine a `getMore` waiting on the killed cursor answers CursorNotFound (43) and
 * the driver resumes transparently; a real mongod answers it with CursorKilled (237), which the
 * driver surfaces as a stream error (see adapters/embedded-mongo/KNOWN-ISSUES.md).
 *
 * Cursor ids are random 63-bit longs; the listing keeps them as Long (`promoteLongs: false`)
 * because an id below 2^53 would otherwise come back as a JS number, be sent as a double, and
 * `killCursors` refuses non-long ids with TypeMismatch (about one run in a thousand).
 *
 * @example
 * await killChangeStreamCursors(mongoose.connection.getClient(), `${mongoose.connection.name}.flags`);
 */
export async function killChangeStreamCursors(client: MongoClient, ns: string): Promise<number> {
  const ops = await client
    .db("admin")
    .aggregate<{ ns: string; cursor: { cursorId: unknown } }>([
      { $currentOp: { idleCursors: true, allUsers: true } },
      { $match: { ns, "cursor.originatingCommand.pipeline.0.$changeStream": { $exists: true } } },
    ], { promoteLongs: false })
    .toArray();
  for (const op of ops) {
    const dot = op.ns.indexOf(".");
    await client.db(op.ns.slice(0, dot)).command({ killCursors: op.ns.slice(dot + 1), cursors: [op.cursor.cursorId] });
  }
  return ops.length;
}
