import { randomUUID } from "node:crypto";
import { acceptedResult } from "../../contracts/comms-result.js";
import type { PushMessage, PushSender, PushTokenResult } from "../../contracts/push.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { CONSOLE_KEPT_MESSAGES } from "../mail/console.js";

/**
 * The development push sender: serves every token kind, logs each notification and accepts it
 * (the last ones stay in `sent`).
 *
 * @example
 * commsPlugin({ push: new ConsolePushSender({ logger: console }) });
 */
export class ConsolePushSender implements PushSender {
  readonly name = "console";
  readonly sent: PushMessage[] = [];
  private readonly logger?: SvcLogger;

  constructor(options: { logger?: SvcLogger } = {}) {
    this.logger = options.logger;
  }

  supports(): boolean {
    return true;
  }

  async sendPush(message: PushMessage): Promise<PushTokenResult[]> {
    this.sent.push(message);
    if (this.sent.length > CONSOLE_KEPT_MESSAGES) this.sent.shift();
    this.logger?.info(`Push (console): "${message.title ?? ""}"`, { tokens: message.targets?.length ?? 0 });
    return (message.targets ?? []).map((target) => ({ token: target.token, ...acceptedResult({ providerMessageId: `console-${randomUUID()}` }) }));
  }
}
