import type { Document } from "bson";

/**
 * What a tailable, awaitData cursor (a change stream) reads from. Unlike a result iterator it is
 * never "done" just because nothing is available right now: `peek` answers `undefined` until new
 * data arrives, and the cursor only ends when `exhausted` turns true (an invalidated stream).
 *
 * The registry pulls with `peek` and acknowledges with `consume` only once a document fits in the
 * batch, so a source always knows exactly what the client has received (its resume position).
 *
 * @example
 * const source: TailableSource = changeStreamSource;
 * const doc = source.peek();       // next event available now, or undefined
 * if (doc) source.consume();       // it went into the batch
 * source.batchFields();            // {postBatchResumeToken: {...}}
 */
export interface TailableSource {
  /** The next document available now, without taking it; `undefined` when none is. */
  peek(): Document | undefined;
  /** Marks the document `peek` returned as delivered. */
  consume(): void;
  /** No document will ever come again: the cursor closes after the current batch. */
  readonly exhausted: boolean;
  /** Extra `cursor` fields for the batch just built (e.g. `postBatchResumeToken`). */
  batchFields(): Document;
  /**
   * Calls `listener` (synchronously, possibly inside another command's commit: it must only
   * record the wake-up) whenever new data may have become available. Returns the unsubscriber.
   */
  onChange(listener: () => void): () => void;
}
