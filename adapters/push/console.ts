import { randomUUID } from "node:crypto";
import { acceptedResult } from "../../contracts/comms-result.js";
import type { PushMessage, PushSender, PushTokenResult } from "../../contracts/push.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { CONSOLE_KEPT_MESSAGES } from "../mail/console.js";
import { DEFAULT_WEB_PUSH_HOSTS, expoTokenProblem, readWebPushToken } from "./push-token-format.js";

/**
 * The development push sender: serves every token kind, logs each notification and accepts it
 * (the last ones stay in `sent`). It refuses to register the tokens `ExpoPushSender` and
 * `WebPushSender` would refuse, so an app tried out on it takes no token production cannot use.
 *
 * @example
 * commsPlugin({ push: new ConsolePushSender({ logger: console }) });
 */
export class ConsolePushSender implements PushSender {
  readonly name = "console";
  readonly sent: PushMessage[] = [];
  private readonly logger?: SvcLogger;
  private readonly allowedHosts: readonly string[];

  /** `allowedEndpointHosts`: as `WebPushSender`'s (default `DEFAULT_WEB_PUSH_HOSTS`). */
  constructor(options: { logger?: SvcLogger; allowedEndpointHosts?: readonly string[] } = {}) {
    this.logger = options.logger;
    this.allowedHosts = options.allowedEndpointHosts ?? DEFAULT_WEB_PUSH_HOSTS;
  }

  supports(): boolean {
    return true;
  }

  validateToken(kind: string, token: string): string | undefined {
    if (kind === "expo") return expoTokenProblem(token);
    if (kind === "webpush") return readWebPushToken(token, this.allowedHosts).problem;
    return undefined;
  }

  async sendPush(message: PushMessage): Promise<PushTokenResult[]> {
    this.sent.push(message);
    if (this.sent.length > CONSOLE_KEPT_MESSAGES) this.sent.shift();
    this.logger?.info(`Push (console): "${message.title ?? ""}"`, { tokens: message.targets?.length ?? 0 });
    return (message.targets ?? []).map((target) => ({ token: target.token, ...acceptedResult({ providerMessageId: `console-${randomUUID()}` }) }));
  }
}
