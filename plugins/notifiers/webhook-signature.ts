import { createHmac, timingSafeEqual } from "node:crypto";
import type { Environment } from "../../kernel/environment.js";
import { WebhookSignatureErrors } from "./errors.js";
import { notifiersEnvironment } from "./notifiers-environment.js";

/** Signatures are `sha256=<hex HMAC of the raw body>`; the bare hex form is accepted too. */
const SIGNATURE = /^(?:sha256=)?([0-9a-fA-F]{64})$/;

/** The secret to check incoming webhooks with: `secret`, else `WEBHOOK_SECRET` of `env` (default `process.env`). */
export function webhookSecret(options: { secret?: string; env?: Environment } = {}): string {
  const secret = options.secret || notifiersEnvironment(options.env).webhookSecret;
  if (!secret) throw WebhookSignatureErrors.SECRET_MISSING();
  return secret;
}

/**
 * The signature a sender puts on a payload: `sha256=` and the hex HMAC-SHA256 of the exact bytes.
 *
 * @example
 * const signature = signWebhookPayload(JSON.stringify(event), process.env.WEBHOOK_SECRET!);
 * await axios.post(url, body, { headers: { "x-webhook-signature": signature } });
 */
export function signWebhookPayload(payload: string | Buffer, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(payload).digest("hex")}`;
}

export interface VerifyWebhookSignatureOptions {
  /** The raw request body, byte for byte as received (not re-serialised JSON). */
  payload: string | Buffer;
  /** The signature header value. */
  signature: string | undefined;
  /** Default: `WEBHOOK_SECRET`. */
  secret?: string;
  /** Where `WEBHOOK_SECRET` is read: inside an app pass `ctx.config.env`; default `process.env`, read once. */
  env?: Environment;
  /** Header name, for the error message. */
  header?: string;
}

/**
 * Checks an incoming webhook's HMAC-SHA256 signature in constant time. Throws
 * `WEBHOOK_SIGNATURE_MISSING` (401), `WEBHOOK_SIGNATURE_INVALID` (401) or `WEBHOOK_SECRET_MISSING`
 * (500, when neither `secret` nor `WEBHOOK_SECRET` is set).
 *
 * @example
 * verifyWebhookSignature({ payload: req.rawBody!, signature: req.get("x-webhook-signature") });
 */
export function verifyWebhookSignature(options: VerifyWebhookSignatureOptions): void {
  const secret = webhookSecret(options);
  if (!options.signature) throw WebhookSignatureErrors.SIGNATURE_MISSING(options.header ?? "x-webhook-signature");
  const match = SIGNATURE.exec(options.signature.trim());
  const expected = createHmac("sha256", secret).update(options.payload).digest();
  // Malformed signatures compare against a dummy of the right length, so timing says nothing.
  const given = match ? Buffer.from(match[1]!, "hex") : Buffer.alloc(expected.length);
  if (!timingSafeEqual(given, expected) || !match) throw WebhookSignatureErrors.SIGNATURE_INVALID();
}

/**
 * `verifyWebhookSignature` as a boolean (still throws `WEBHOOK_SECRET_MISSING` when no secret is
 * configured: that is a deployment mistake, not a bad request).
 *
 * @example
 * if (!isValidWebhookSignature({ payload, signature })) return res.sendStatus(401);
 */
export function isValidWebhookSignature(options: VerifyWebhookSignatureOptions): boolean {
  webhookSecret(options);
  try {
    verifyWebhookSignature(options);
    return true;
  } catch {
    return false;
  }
}
