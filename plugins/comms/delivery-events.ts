import type { DeliveryEvent, DeliveryEventType } from "../../contracts/delivery-webhook.js";
import type { CommsMessageModel, CommsStatus } from "./comms-message-model.js";

/**
 * How each event moves a row's status (docs/comms.md): the statuses an event may leave, and the
 * one it sets. Events without an entry (`opened`, `clicked`, `deferred`, `complained`) are only
 * recorded; `opened` never changes `status` (SPEC §3.4).
 */
const TRANSITIONS: Partial<Record<DeliveryEventType, { from: readonly CommsStatus[]; to: CommsStatus; errorClass?: "permanent" }>> = {
  delivered: { from: ["sent", "partial"], to: "delivered" },
  bounced: { from: ["sent", "partial", "delivered"], to: "bounced", errorClass: "permanent" },
  failed: { from: ["sent", "partial", "delivered"], to: "failed", errorClass: "permanent" },
};

const EVENT_TYPES: ReadonlySet<string> = new Set(["delivered", "bounced", "failed", "deferred", "opened", "clicked", "complained"]);

/**
 * Applies a delivery event to the row whose provider message id it names: appends it to
 * `events` (once per `eventId`) and moves `status` as `TRANSITIONS` allow, writing `errorCode`
 * and `errorClass` for failures. An unknown message id (or event type) changes nothing.
 *
 * @example
 * await applyDeliveryEvent(Messages, { provider: "sendgrid", providerMessageId: "abc", type: "bounced", errorCode: "550" }, () => new Date());
 */
export async function applyDeliveryEvent(messages: CommsMessageModel, event: DeliveryEvent, now: () => Date): Promise<{ messageId: string; status: string } | undefined> {
  if (!event || typeof event.providerMessageId !== "string" || event.providerMessageId === "" || !EVENT_TYPES.has(event.type)) return undefined;
  const match = { providerMessageIds: event.providerMessageId, provider: event.provider };
  const row = await messages.findOne(match, { _id: 1, status: 1 }).lean();
  if (!row) return undefined;
  const record = {
    type: event.type,
    at: event.at instanceof Date && !Number.isNaN(event.at.getTime()) ? event.at : now(),
    ...(typeof event.eventId === "string" ? { eventId: event.eventId } : {}),
    ...(typeof event.errorCode === "string" ? { errorCode: event.errorCode } : {}),
  };
  const fresh = typeof event.eventId === "string" ? { "events.eventId": { $ne: event.eventId } } : {};
  const transition = TRANSITIONS[event.type];
  let status: string = row.status;
  if (transition && transition.from.includes(row.status)) {
    const moved = await messages.updateOne(
      { _id: row._id, status: { $in: transition.from }, ...fresh },
      {
        $push: { events: record },
        $set: {
          status: transition.to,
          updated: now(),
          ...(transition.errorClass ? { errorClass: transition.errorClass, errorCode: record.errorCode ?? event.type } : {}),
        },
      },
    );
    if (moved.modifiedCount === 1) return { messageId: String(row._id), status: transition.to };
  }
  const appended = await messages.updateOne({ _id: row._id, ...fresh }, { $push: { events: record }, $set: { updated: now() } });
  if (appended.modifiedCount === 0) return undefined;
  status = row.status;
  return { messageId: String(row._id), status };
}
