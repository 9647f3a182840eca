import axios, { type AxiosInstance } from "axios";
import { acceptedResult, classifyHttpStatus, failedResult, SEND_ERROR_CODES, type SendResult } from "../../contracts/comms-result.js";
import type { PushMessage, PushSender, PushTokenResult } from "../../contracts/push.js";
import type { Environment } from "../../kernel/environment.js";
import { expoTokenProblem } from "./push-token-format.js";

/** Options of `ExpoPushSender`. */
export interface ExpoPushOptions {
  /** For Expo's enhanced push security; default `EXPO_ACCESS_TOKEN` (optional). */
  accessToken?: string;
  /** Default `https://exp.host`. */
  baseUrl?: string;
  timeoutMs?: number;
  env?: Environment;
  /** The provider name in the delivery log (default `expo`). */
  name?: string;
}

/** Expo accepts at most this many messages per request. */
const BATCH = 100;

/** Expo's per-ticket error names (https://docs.expo.dev/push-notifications/sending-notifications/#individual-errors). */
const TICKET_ERRORS: Readonly<Record<string, [string, "permanent" | "transient" | "config"]>> = {
  DeviceNotRegistered: [SEND_ERROR_CODES.tokenInvalid, "permanent"],
  MessageTooBig: [SEND_ERROR_CODES.invalidMessage, "permanent"],
  MessageRateExceeded: [SEND_ERROR_CODES.rateLimited, "transient"],
  MismatchSenderId: [SEND_ERROR_CODES.misconfigured, "config"],
  InvalidCredentials: [SEND_ERROR_CODES.unauthorized, "config"],
};

/**
 * Mobile push through the Expo push service's HTTP API (`POST /--/api/v2/push/send`), with axios:
 * the official `expo-server-sdk`'s current major needs Node 22. Tokens are sent in batches of 100;
 * each ticket is classified (`DeviceNotRegistered` permanent, so the token is deactivated;
 * `MessageRateExceeded` transient; credential problems config). An answer without one ticket per
 * token is a transient `malformed-response` for the whole batch.
 *
 * @example
 * commsPlugin({ push: [new ExpoPushSender(), new WebPushSender({ vapid })] });
 */
export class ExpoPushSender implements PushSender {
  readonly name: string;
  private readonly http: AxiosInstance;

  constructor(options: ExpoPushOptions = {}) {
    const env = options.env ?? process.env;
    const accessToken = options.accessToken ?? env.EXPO_ACCESS_TOKEN;
    this.name = options.name ?? "expo";
    this.http = axios.create({
      baseURL: options.baseUrl ?? "https://exp.host",
      timeout: options.timeoutMs ?? 15_000,
      headers: { Accept: "application/json", "Content-Type": "application/json", ...(accessToken ? { Authorization: `Bearer ${accessToken}` } : {}) },
      // Every status is an answer to classify, not an exception.
      validateStatus: () => true,
    });
  }

  supports(kind: string): boolean {
    return kind === "expo";
  }

  validateToken(kind: string, token: string): string | undefined {
    return kind === "expo" ? expoTokenProblem(token) : undefined;
  }

  async sendPush(message: PushMessage): Promise<PushTokenResult[]> {
    const targets = message.targets ?? [];
    const results: PushTokenResult[] = [];
    for (let start = 0; start < targets.length; start += BATCH) {
      const batch = targets.slice(start, start + BATCH);
      const valid = batch.filter((target) => expoTokenProblem(target.token) === undefined);
      const answers = valid.length > 0 ? await this.sendBatch(valid.map((target) => target.token), message) : [];
      let next = 0;
      for (const target of batch) {
        results.push({ token: target.token, ...(expoTokenProblem(target.token) === undefined ? answers[next++]! : failedResult(SEND_ERROR_CODES.tokenInvalid, "permanent")) });
      }
    }
    return results;
  }

  private async sendBatch(tokens: string[], message: PushMessage): Promise<SendResult[]> {
    const all = (result: SendResult) => tokens.map(() => result);
    let response;
    try {
      response = await this.http.post("/--/api/v2/push/send", tokens.map((to) => ({ to, title: message.title, body: message.body, data: message.data, sound: "default" })));
    } catch {
      return all(failedResult(SEND_ERROR_CODES.network, "transient"));
    }
    if (response.status < 200 || response.status >= 300) {
      const [errorCode, errorClass] = classifyHttpStatus(response.status);
      return all(failedResult(errorCode, errorClass));
    }
    const tickets = (response.data as { data?: unknown })?.data;
    if (!Array.isArray(tickets) || tickets.length !== tokens.length) return all(failedResult(SEND_ERROR_CODES.malformedResponse, "transient"));
    return tickets.map((ticket: { status?: unknown; id?: unknown; details?: { error?: unknown } }) => {
      if (ticket?.status === "ok" && typeof ticket.id === "string") return acceptedResult({ providerMessageId: ticket.id });
      if (ticket?.status === "error") {
        const known = typeof ticket.details?.error === "string" ? TICKET_ERRORS[ticket.details.error] : undefined;
        // An error Expo added after this adapter was written: not a reason to drop the device.
        return known ? failedResult(known[0], known[1]) : failedResult(SEND_ERROR_CODES.providerUnavailable, "transient");
      }
      return failedResult(SEND_ERROR_CODES.malformedResponse, "transient");
    });
  }
}
