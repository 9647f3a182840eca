import { token } from "../kernel/container.js";
import type { DeliveryWebhook } from "./delivery-webhook.js";
import type { SendResult } from "./comms-result.js";

/**
 * A text message. `to` is an E.164 number (`+14155550100`); `from` defaults to the adapter's.
 *
 * @example
 * const sms: SmsMessage = { to: "+14155550100", body: "Your order shipped" };
 */
export interface SmsMessage {
  readonly to: string;
  readonly from?: string;
  readonly body: string;
}

/**
 * The SMS port (Twilio, the console). `sendSms` never throws.
 *
 * @example
 * const result = await sms.sendSms({ to: "+14155550100", body: "Hi" });
 */
export interface SmsSender {
  readonly name: string;
  sendSms(message: SmsMessage): Promise<SendResult>;
  /** The provider's status-callback webhook, when it has one. */
  readonly webhook?: DeliveryWebhook;
}

/** The SMS providers the comms plugin uses, first first. */
export const SMS_SENDERS = token<readonly SmsSender[]>("comms.SmsSenders");
