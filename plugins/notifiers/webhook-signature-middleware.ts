import express, { type RequestHandler } from "express";
import type { Environment } from "../../kernel/environment.js";
import { WebhookSignatureErrors } from "./errors.js";
import { captureRawBody } from "../../contracts/raw-body.js";
import { decodingFailuresAsClientErrors } from "../validation/index.js";
import { verifyWebhookSignature, webhookSecret } from "./webhook-signature.js";

export interface WebhookSignatureMiddlewareOptions {
  /** Default: `WEBHOOK_SECRET`. */
  secret?: string;
  /** Header carrying `sha256=<hex>`. Default `x-webhook-signature`. */
  header?: string;
  /** Largest body read when the middleware reads it itself. Default `1mb`. */
  limit?: string | number;
  /** Where `WEBHOOK_SECRET` is read: inside an app pass `ctx.config.env`; default `process.env`, read once. */
  env?: Environment;
}

/**
 * Express middleware that rejects requests whose HMAC-SHA256 signature does not match the raw
 * body (401 `WEBHOOK_SIGNATURE_MISSING` / `WEBHOOK_SIGNATURE_INVALID`). In an svc app the JSON
 * parser keeps the raw bytes (`req.rawBody`), so JSON webhooks just work; for other content types
 * the middleware reads the body itself (and parses JSON afterwards).
 *
 * @example
 * router.post("/webhooks/billing", webhookSignatureMiddleware(), (req, res) => {
 *   handleBillingEvent(req.body);
 *   res.sendStatus(204);
 * });
 */
export function webhookSignatureMiddleware(options: WebhookSignatureMiddlewareOptions = {}): RequestHandler {
  const header = (options.header ?? "x-webhook-signature").toLowerCase();
  const readRaw = decodingFailuresAsClientErrors(express.raw({ type: () => true, limit: options.limit ?? "1mb", verify: captureRawBody }));
  return function svcWebhookSignature(req, res, next) {
    try {
      // Fail on a missing secret before reading anything: it is a deployment error.
      webhookSecret(options);
    } catch (error) {
      next(error);
      return;
    }
    const verify = () => {
      try {
        if (!req.rawBody) throw WebhookSignatureErrors.RAW_BODY_UNAVAILABLE();
        const signature = req.get(header);
        verifyWebhookSignature({ payload: req.rawBody, signature, secret: options.secret, env: options.env, header });
        if (Buffer.isBuffer(req.body) && req.is("application/json")) req.body = parseJsonOr(req.rawBody, req.body);
        next();
      } catch (error) {
        next(error);
      }
    };
    // Body already consumed (by the app's JSON parser, which kept the bytes) or not yet read?
    if (req.rawBody || (req.complete && !req.readable)) verify();
    else
      readRaw(req, res, (error?: unknown) => {
        if (error) return next(error);
        // No body at all (e.g. a signed GET): the signature covers zero bytes.
        req.rawBody ??= Buffer.alloc(0);
        verify();
      });
  };
}

function parseJsonOr(raw: Buffer, fallback: unknown): unknown {
  try {
    return JSON.parse(raw.toString("utf8")) as unknown;
  } catch {
    return fallback;
  }
}
