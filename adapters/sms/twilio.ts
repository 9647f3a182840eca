import twilio from "twilio";
import { acceptedResult, failedResult, SEND_ERROR_CODES, type SendResult } from "../../contracts/comms-result.js";
import type { DeliveryWebhook } from "../../contracts/delivery-webhook.js";
import type { SmsMessage, SmsSender } from "../../contracts/sms.js";
import type { Environment } from "../../kernel/environment.js";
import { SmsAdapterErrors } from "./errors.js";
import { classifyTwilioError } from "./twilio-errors.js";
import { twilioStatusWebhook } from "./twilio-webhook.js";

/** Options of `TwilioSmsSender`. */
export interface TwilioSmsOptions {
  /** Default `TWILIO_ACCOUNT_SID`. */
  accountSid?: string;
  /** Default `TWILIO_AUTH_TOKEN`; also checks the status callbacks' signatures. */
  authToken?: string;
  /** The sending number (E.164), unless `messagingServiceSid` is given. */
  from?: string;
  messagingServiceSid?: string;
  /**
   * The public URL of `{basePath}/webhooks/twilio` (e.g. `https://api.example.com/comms/webhooks/twilio`):
   * sent as each message's status callback, and the URL its signatures are checked against.
   * Without it no webhook is mounted.
   */
  statusCallbackUrl?: string;
  env?: Environment;
  /** The provider name in the delivery log (default `twilio`). */
  name?: string;
}

/**
 * The Twilio SMS adapter, on the official `twilio` library. Failures are classified by Twilio's
 * error codes (bad numbers and opted-out recipients permanent, credentials and senders config,
 * rate limits and outages transient), never thrown; an accepted send carries the message SID and
 * a console deep link. With `statusCallbackUrl`, delivery statuses and STOP opt-outs arrive on the
 * plugin's signed webhook.
 *
 * @example
 * commsPlugin({ sms: new TwilioSmsSender({ from: "+14155550199", statusCallbackUrl: "https://api.example.com/comms/webhooks/twilio" }) });
 */
export class TwilioSmsSender implements SmsSender {
  readonly name: string;
  readonly webhook?: DeliveryWebhook;
  private readonly client: twilio.Twilio;
  private readonly options: TwilioSmsOptions;
  private readonly accountSid: string;

  constructor(options: TwilioSmsOptions = {}) {
    const env = options.env ?? process.env;
    const accountSid = options.accountSid ?? env.TWILIO_ACCOUNT_SID;
    const authToken = options.authToken ?? env.TWILIO_AUTH_TOKEN;
    if (!accountSid || !authToken) throw SmsAdapterErrors.CREDENTIALS_REQUIRED();
    if (!options.from && !options.messagingServiceSid) throw SmsAdapterErrors.SENDER_REQUIRED();
    this.name = options.name ?? "twilio";
    this.options = options;
    this.accountSid = accountSid;
    // Sends are sporadic: a kept-alive socket would mostly idle until Twilio closes it.
    this.client = twilio(accountSid, authToken, { keepAlive: false });
    if (options.statusCallbackUrl) this.webhook = twilioStatusWebhook({ provider: this.name, authToken, url: options.statusCallbackUrl });
  }

  async sendSms(message: SmsMessage): Promise<SendResult> {
    if (typeof message?.to !== "string" || message.to === "") return failedResult(SEND_ERROR_CODES.invalidRecipient, "permanent");
    if (typeof message.body !== "string" || message.body === "") return failedResult(SEND_ERROR_CODES.invalidMessage, "permanent");
    try {
      const sent = await this.client.messages.create({
        to: message.to,
        body: message.body,
        ...(message.from ?? this.options.from ? { from: message.from ?? this.options.from } : { messagingServiceSid: this.options.messagingServiceSid }),
        ...(this.options.statusCallbackUrl ? { statusCallback: this.options.statusCallbackUrl } : {}),
      });
      if (typeof sent?.sid !== "string" || sent.sid === "") return failedResult(SEND_ERROR_CODES.malformedResponse, "transient");
      return acceptedResult({ providerMessageId: sent.sid, consoleUrl: `https://console.twilio.com/us1/monitor/logs/sms/${encodeURIComponent(sent.sid)}?accountSid=${this.accountSid}` });
    } catch (error) {
      return classifyTwilioError(error);
    }
  }
}
