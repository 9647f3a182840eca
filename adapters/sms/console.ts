import { randomUUID } from "node:crypto";
import { acceptedResult, type SendResult } from "../../contracts/comms-result.js";
import type { SmsMessage, SmsSender } from "../../contracts/sms.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { CONSOLE_KEPT_MESSAGES } from "../mail/console.js";

/**
 * The development SMS sender: logs each text and accepts it (the last ones stay in `sent`).
 *
 * @example
 * commsPlugin({ sms: new ConsoleSmsSender({ logger: console }) });
 */
export class ConsoleSmsSender implements SmsSender {
  readonly name = "console";
  readonly sent: SmsMessage[] = [];
  private readonly logger?: SvcLogger;

  constructor(options: { logger?: SvcLogger } = {}) {
    this.logger = options.logger;
  }

  async sendSms(message: SmsMessage): Promise<SendResult> {
    const providerMessageId = `console-${randomUUID()}`;
    this.sent.push(message);
    if (this.sent.length > CONSOLE_KEPT_MESSAGES) this.sent.shift();
    this.logger?.info("SMS (console)", { to: message.to, length: message.body?.length ?? 0, providerMessageId });
    return acceptedResult({ providerMessageId });
  }
}
