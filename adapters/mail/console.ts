import { randomUUID } from "node:crypto";
import { acceptedResult, type SendResult } from "../../contracts/comms-result.js";
import type { Mailer, MailMessage } from "../../contracts/mailer.js";
import type { SvcLogger } from "../../kernel/logger.js";

/** How many sent messages a console adapter keeps for inspection (older ones are dropped). */
export const CONSOLE_KEPT_MESSAGES = 100;

/**
 * The development mailer: logs each mail (recipients and subject, never the body) and accepts it.
 * The comms plugin falls back to it outside production when no mail provider is configured; the
 * last mails stay in `sent` for tests and the demo.
 *
 * @example
 * commsPlugin({ mail: new ConsoleMailer({ logger: console }) });
 */
export class ConsoleMailer implements Mailer {
  readonly name = "console";
  readonly sent: MailMessage[] = [];
  private readonly logger?: SvcLogger;

  constructor(options: { logger?: SvcLogger } = {}) {
    this.logger = options.logger;
  }

  async sendMail(message: MailMessage): Promise<SendResult> {
    const providerMessageId = `console-${randomUUID()}`;
    this.sent.push(message);
    if (this.sent.length > CONSOLE_KEPT_MESSAGES) this.sent.shift();
    this.logger?.info(`Mail (console): "${message.subject ?? message.templateId ?? ""}"`, { to: message.to, providerMessageId });
    return acceptedResult({ providerMessageId });
  }
}
