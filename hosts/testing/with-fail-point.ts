import mongoose from "mongoose";

/** Data of MongoDB's `failCommand` fail point (docs/embedded-mongo.md, "Fault injection"). */
export interface FailCommandData {
  /** Command names to fail (`"insert"`, `"getMore"`, `"commitTransaction"`...). */
  readonly failCommands?: readonly string[];
  /** The error code the command fails with. */
  readonly errorCode?: number;
  /** Replaces the labels the server would compute (`[]`: none). */
  readonly errorLabels?: readonly string[];
  /** Drop the connection instead of answering. */
  readonly closeConnection?: boolean;
  /** Hold the command `blockTimeMS` before going on (with or without an error). */
  readonly blockConnection?: boolean;
  readonly blockTimeMS?: number;
  /** Run the write, then report this write concern error. */
  readonly writeConcernError?: { readonly code: number; readonly errmsg: string; readonly errInfo?: Readonly<Record<string, unknown>> };
  /** Only commands of clients with this `appName`. */
  readonly appName?: string;
  /** Only commands on this `db.collection`. */
  readonly namespace?: string;
  /** Also fail connections that announced themselves as internal (other servers). */
  readonly failInternalCommands?: boolean;
}

/** A fail point to set: which one, its mode, its data. */
export interface FailPointSpec {
  /** Default `failCommand`; also `failGetMoreAfterCursorCheckout` ({errorCode}) and `maxTimeAlwaysTimeOut`. */
  readonly failPoint?: string;
  readonly mode: "alwaysOn" | { readonly times: number } | { readonly skip: number } | { readonly activationProbability: number };
  readonly data?: FailCommandData | { readonly errorCode?: number };
}

/**
 * Sets a fail point on the database at `uri` (the embedded engine, or a mongod started with
 * `--setParameter enableTestCommands=1`), runs `fn`, and turns the point off again, even when
 * `fn` throws. Returns what `fn` returns. The fail point is server-wide: run such tests serially.
 *
 * @example
 * await withFailPoint(db.uri, {mode: {times: 1}, data: {failCommands: ["insert"], errorCode: 91}}, async () => {
 *   await Todo.create({title: "retried once, transparently"});
 * });
 */
export async function withFailPoint<T>(uri: string, spec: FailPointSpec, fn: () => Promise<T> | T): Promise<T> {
  const client = await new mongoose.mongo.MongoClient(uri, { appName: "svc-testing-fail-point" }).connect();
  const name = spec.failPoint ?? "failCommand";
  try {
    const admin = client.db("admin");
    await admin.command({ configureFailPoint: name, mode: spec.mode, ...(spec.data ? { data: spec.data } : {}) });
    try {
      return await fn();
    } finally {
      await admin.command({ configureFailPoint: name, mode: "off" });
    }
  } finally {
    await client.close();
  }
}
