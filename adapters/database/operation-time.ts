import { Timestamp, type ChangeStreamOptions, type Db, type ResumeToken } from "mongodb";

/**
 * The operation time just after everything the deployment has committed (a `ping` in a session
 * reports the last one), to open a change stream at with `startAtOperationTime`. A stream opened
 * that way reports every write committed after this call, however late its cursor reaches the
 * server — so a service can start without waiting for its stream's first, empty, server-side wait
 * (a second by default). Undefined where the deployment keeps no cluster time (a standalone
 * `mongod`, which has no change streams either).
 *
 * @example
 * const startAt = await operationTimeNow(db);
 * const stream = db.watch(pipeline, startAt ? { startAtOperationTime: startAt } : {});
 */
export async function operationTimeNow(db: Db): Promise<Timestamp | undefined> {
  const session = db.client.startSession();
  try {
    await db.command({ ping: 1 }, { session });
    const last = session.operationTime;
    // Start times are inclusive; a later write's time is at least the next increment.
    return last && new Timestamp({ t: last.t, i: last.i + 1 });
  } finally {
    await session.endSession();
  }
}

/**
 * Where a change stream (re)opens: after its last resume token, else at the start time it was
 * given, else from now.
 *
 * @example
 * db.watch(pipeline, { fullDocument: "required", ...changeStreamStart(resumeToken, startAt) });
 */
export function changeStreamStart(resumeToken: ResumeToken | undefined, startAt: Timestamp | undefined): Pick<ChangeStreamOptions, "resumeAfter" | "startAtOperationTime"> {
  if (resumeToken) return { resumeAfter: resumeToken };
  return startAt ? { startAtOperationTime: startAt } : {};
}
