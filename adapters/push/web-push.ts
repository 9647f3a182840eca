import { randomUUID } from "node:crypto";
import type { Agent } from "node:https";
import webpush from "web-push";
import { acceptedResult, classifyHttpStatus, failedResult, SEND_ERROR_CODES, type SendResult } from "../../contracts/comms-result.js";
import type { PushMessage, PushSender, PushTokenResult } from "../../contracts/push.js";
import type { Environment } from "../../kernel/environment.js";
import { PushAdapterErrors } from "./errors.js";
import { DEFAULT_WEB_PUSH_HOSTS, readWebPushToken } from "./push-token-format.js";

/** VAPID identification of the application server (RFC 8292). */
export interface VapidDetails {
  /** A `mailto:` or `https:` URL the push service can reach the sender at. */
  subject: string;
  publicKey: string;
  privateKey: string;
}

/** Options of `WebPushSender`. */
export interface WebPushOptions {
  /** Default: `WEB_PUSH_VAPID_SUBJECT`, `WEB_PUSH_VAPID_PUBLIC_KEY`, `WEB_PUSH_VAPID_PRIVATE_KEY`. */
  vapid?: VapidDetails;
  /** Seconds a push service keeps an undelivered notification (default 86400). */
  ttlSeconds?: number;
  /** The HTTPS agent for push-service requests (a proxy, or a private CA). */
  agent?: Agent;
  /** How long each push service may take to answer (default 30 000 ms; the library itself waits forever): then a transient `network` failure. */
  timeoutMs?: number;
  env?: Environment;
  /** The provider name in the delivery log (default `webpush`). */
  name?: string;
  /**
   * The push-service hosts a subscription's endpoint may name: exact hosts, or `*.suffix` for
   * subdomains (default `DEFAULT_WEB_PUSH_HOSTS`: FCM, Mozilla, Windows, Apple). Endpoints come
   * from clients, so other hosts are refused at registration and never sent to.
   */
  allowedEndpointHosts?: readonly string[];
}

/**
 * Browser push through the Web Push protocol, on the `web-push` library (VAPID, aes128gcm payload
 * encryption). A token is the browser's `PushSubscription` as JSON. The push service's answer is
 * classified: 404/410 (the subscription is gone) permanent `token-invalid`, so the token is
 * deactivated; 401/403 (VAPID refused) config; 429/5xx/network transient. A subscription whose
 * endpoint is not on a known push service (`allowedEndpointHosts`) is refused at registration and,
 * if stored before, is a permanent `token-invalid` without a request.
 *
 * @example
 * commsPlugin({ push: new WebPushSender({ vapid: { subject: "mailto:ops@example.com", publicKey, privateKey } }) });
 */
export class WebPushSender implements PushSender {
  readonly name: string;
  private readonly vapid: VapidDetails;
  private readonly options: WebPushOptions;
  private readonly allowedHosts: readonly string[];

  constructor(options: WebPushOptions = {}) {
    const env = options.env ?? process.env;
    const vapid = options.vapid ?? { subject: env.WEB_PUSH_VAPID_SUBJECT ?? "", publicKey: env.WEB_PUSH_VAPID_PUBLIC_KEY ?? "", privateKey: env.WEB_PUSH_VAPID_PRIVATE_KEY ?? "" };
    try {
      // The library's own checks (key lengths, subject format), run once here rather than per send.
      webpush.getVapidHeaders("https://push.example.com", vapid.subject, vapid.publicKey, vapid.privateKey, "aes128gcm");
    } catch (error) {
      throw PushAdapterErrors.VAPID_REQUIRED(error instanceof Error ? error.message : String(error));
    }
    this.name = options.name ?? "webpush";
    this.vapid = vapid;
    this.options = options;
    this.allowedHosts = options.allowedEndpointHosts ?? DEFAULT_WEB_PUSH_HOSTS;
  }

  supports(kind: string): boolean {
    return kind === "webpush";
  }

  validateToken(kind: string, token: string): string | undefined {
    return kind === "webpush" ? readWebPushToken(token, this.allowedHosts).problem : undefined;
  }

  async sendPush(message: PushMessage): Promise<PushTokenResult[]> {
    const payload = JSON.stringify({ title: message.title, body: message.body, data: message.data });
    return Promise.all((message.targets ?? []).map(async (target) => ({ token: target.token, ...(await this.sendOne(target.token, payload)) })));
  }

  private async sendOne(token: string, payload: string): Promise<SendResult> {
    const { subscription } = readWebPushToken(token, this.allowedHosts);
    if (!subscription) return failedResult(SEND_ERROR_CODES.tokenInvalid, "permanent");
    try {
      const response = await webpush.sendNotification(subscription, payload, {
        vapidDetails: this.vapid,
        TTL: this.options.ttlSeconds ?? 86_400,
        contentEncoding: "aes128gcm",
        ...(this.options.agent ? { agent: this.options.agent } : {}),
        timeout: this.options.timeoutMs ?? 30_000,
      });
      const location = response?.headers?.location;
      return acceptedResult({ providerMessageId: typeof location === "string" && location !== "" ? location : randomUUID() });
    } catch (error) {
      const status = (error as { statusCode?: unknown })?.statusCode;
      if (typeof status !== "number") return failedResult(SEND_ERROR_CODES.network, "transient");
      if (status === 404 || status === 410) return failedResult(SEND_ERROR_CODES.tokenInvalid, "permanent");
      if (status === 413) return failedResult(SEND_ERROR_CODES.invalidMessage, "permanent");
      const [errorCode, errorClass] = classifyHttpStatus(status);
      return failedResult(errorCode, errorClass);
    }
  }
}
