import { token } from "../kernel/container.js";
import type { SendResult } from "./comms-result.js";

/** What a device registers: the provider-specific token and which kind of push service it is for. */
export interface PushTarget {
  /** An Expo push token, or a Web Push subscription as JSON (`{endpoint, keys: {p256dh, auth}}`). */
  readonly token: string;
  /** `expo` or `webpush` (other adapters may add kinds). */
  readonly kind: string;
}

/**
 * A notification to the tokens of one send.
 *
 * @example
 * const push: PushMessage = { targets: [{ token, kind: "expo" }], title: "Order shipped", body: "It is on its way" };
 */
export interface PushMessage {
  readonly targets: readonly PushTarget[];
  readonly title?: string;
  readonly body?: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** One token's outcome. */
export interface PushTokenResult extends SendResult {
  readonly token: string;
}

/**
 * The push port (Expo, Web Push, the console). `sendPush` never throws and returns one result per
 * target, in order; a permanent failure (`token-invalid`) makes the plugin deactivate the token.
 *
 * @example
 * const results = await push.sendPush({ targets, title: "Hi" });
 */
export interface PushSender {
  readonly name: string;
  /** Whether this provider can deliver to tokens of `kind`. */
  supports(kind: string): boolean;
  /**
   * Why `token` cannot be registered for `kind` (shown to the client), or undefined when it can.
   * `POST /comms/pushTokens` asks every configured provider serving the kind, so a token a device
   * registers is one the provider will send to (optional: without it, any token is taken).
   */
  validateToken?(kind: string, token: string): string | undefined;
  sendPush(message: PushMessage): Promise<PushTokenResult[]>;
}

/** The push providers the comms plugin uses, first first. */
export const PUSH_SENDERS = token<readonly PushSender[]>("comms.PushSenders");
