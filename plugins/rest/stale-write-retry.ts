import { isStaleWrite } from "../../contracts/stale-write.js";
import { Turns } from "../../kernel/turns.js";

/** Attempts of one write (the first, then retries in the document's turn) before its 409 stands. */
const MAX_ATTEMPTS = 10;

const documentTurns = new Turns(10_000);

/**
 * Runs `write` (load, check, hooks, change, save) and, when its save is refused because another
 * write changed the document after it was loaded (`isStaleWrite`: a synced model's
 * `SYNC_STALE_DOCUMENT`), runs it again from a fresh load. Retries take the document's turn in
 * this process, so concurrent writers of one document redo their work one after another instead
 * of refusing each other again; a write that still loses after 10 attempts (writers in other
 * processes) answers the 409.
 *
 * @example
 * const update = (req) => retryStaleWrite(`Todo:${req.params.id}`, () => updateOnce(req));
 */
export async function retryStaleWrite<R>(document: string, write: () => Promise<R>): Promise<R> {
  let release: (() => void) | undefined;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (error) {
        if (!isStaleWrite(error) || attempt >= MAX_ATTEMPTS) throw error;
        release ??= await documentTurns.take([document]);
      }
    }
  } finally {
    release?.();
  }
}
