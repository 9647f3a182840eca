import axios, { type AxiosRequestConfig } from "axios";
import type { SvcLogger } from "../../kernel/logger.js";
import { SvcError } from "../../kernel/svc-error.js";
import { ApiCallError, normalizeApiError, type NormalizedApiError } from "../http-client/index.js";
import { logger as defaultLogger } from "../logging/index.js";
import { NotifierErrors } from "./errors.js";
import type { ChatService } from "./notifiers-environment.js";
import { resolveWebhookUrl, type WebhookTarget } from "./webhook-targets.js";

/** Options every notifier takes. */
export interface NotifyOptions extends WebhookTarget {
  /** The message text (also the fallback text of rich messages). */
  message: string;
  /** Throw on failure instead of only logging it. Default false. */
  throwOnError?: boolean;
  /** Default 10 000 ms. */
  timeoutMs?: number;
  /**
   * Where failures are logged. Inside an app pass `ctx.logger` (or use `NOTIFIERS`, which does);
   * the default is the logging plugin's global `logger` (for scripts and code outside an app).
   */
  logger?: SvcLogger;
}

/** What a notifier resolves to (it never rejects unless `throwOnError`). */
export interface NotifyResult {
  readonly delivered: boolean;
  readonly statusCode?: number;
  /** Why it failed, normalised (no webhook URL in it: those are credentials). */
  readonly error?: NormalizedApiError;
}

const SERVICE_NAMES: Record<ChatService, string> = { slack: "Slack", googleChat: "Google Chat", zoom: "Zoom" };

/**
 * Posts a payload to a chat webhook. Failures (no target, an unknown channel, a rejected or
 * unreachable webhook) are logged and returned; they throw only with `throwOnError`. Webhook URLs
 * are credentials, so logs name the channel (or only the host), never the URL. Posts are not
 * retried: a repeated chat message is worse than a missing one.
 */
export async function postToWebhook(
  service: ChatService,
  options: NotifyOptions,
  build: (url: URL) => { payload: unknown; config?: AxiosRequestConfig },
): Promise<NotifyResult> {
  const name = SERVICE_NAMES[service];
  const logger = options.logger ?? defaultLogger;
  let target = options.channel ? `channel "${options.channel}"` : "webhook";
  try {
    const url = new URL(resolveWebhookUrl(service, options));
    if (!options.channel) target = `webhook on ${url.host}`;
    const { payload, config } = build(url);
    const response = await axios.post(url.toString(), payload, {
      timeout: options.timeoutMs ?? 10_000,
      ...config,
      headers: { "content-type": "application/json", ...config?.headers },
    });
    return { delivered: true, statusCode: response.status };
  } catch (error) {
    const normalized = normalizeApiError(error, { apiName: service, operation: "notify" });
    // Node's URL error keeps the whole URL (a credential) in `input`: only say that it is malformed.
    const detail = (error as { code?: unknown } | undefined)?.code === "ERR_INVALID_URL" ? "the webhook URL is not a valid URL" : normalized.classification;
    logger.error(`${name} notification to ${target} failed: ${detail}`, {
      notifier: service,
      channel: options.channel,
      apiError: normalized,
    });
    if (options.throwOnError) {
      // Our own coded errors (no target, an unknown channel, a malformed webhook map) as they are.
      if (error instanceof SvcError) throw error;
      throw new ApiCallError(normalized, {
        code: NotifierErrors.DELIVERY_FAILED.code,
        message: NotifierErrors.DELIVERY_FAILED(name, target, detail).message,
      });
    }
    return { delivered: false, statusCode: normalized.statusCode, error: normalized };
  }
}
