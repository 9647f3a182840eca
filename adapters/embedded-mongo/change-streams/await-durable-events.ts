import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CursorBatch } from "../cursors/cursor-batch.js";
import type { EngineServices } from "../engine-services.js";

/**
 * Holds a change-stream batch back until the writes it reports are durable. An awaiting `getMore`
 * is woken inside the writer's commit, before the writer's own reply waited for the journal; a
 * real server only returns majority-committed events, so an event must never reveal a write that
 * a crash could still undo. Without a journal this resolves at once. If durability cannot be
 * confirmed the cursor is killed and the `getMore` fails (InternalError).
 *
 * @example
 * return {cursor: await awaitDurableEvents(ctx.services, batch), ok: 1};
 */
export async function awaitDurableEvents(services: EngineServices, batch: CursorBatch): Promise<CursorBatch> {
  if (batch.docs.length === 0) return batch;
  try {
    await services.awaitDurability();
  } catch (error) {
    if (!batch.id.isZero()) services.cursors.kill(batch.id);
    throw new EngineError(ErrorCodes.InternalError, `change events could not be confirmed durable: ${(error as Error).message}`);
  }
  return batch;
}
