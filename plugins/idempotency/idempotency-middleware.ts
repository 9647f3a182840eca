import type { RequestHandler, Response } from "express";
import { parseDurationSeconds } from "../../kernel/duration.js";
import type { SvcLogger } from "../../kernel/logger.js";
import type { PluginContext } from "../../kernel/plugin.js";
import { IdempotencyErrors } from "./errors.js";
import { idempotencyKeyModel, type StoredResponse } from "./idempotency-key-model.js";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, idempotencyScope, readIdempotencyKey, requestFingerprint } from "./idempotency-key.js";
import { IdempotencyKeys, type RunningClaim } from "./idempotency-keys.js";

/**
 * How a route honours `Idempotency-Key`.
 *
 * @example
 * const options: IdempotencyOptions = { required: true, expiresIn: "48h" };
 */
export interface IdempotencyOptions {
  /** Refuse requests without the header (400 `IDEMPOTENCY_KEY_REQUIRED`). Default false: the key is optional. */
  readonly required?: boolean;
  /** How long a key and its first answer are kept (`30m`, `24h`, `7d`); retries within it are answered from it. Default `24h`. */
  readonly expiresIn?: string;
  /**
   * How long a request holds its key while it runs. A retry meanwhile gets 409
   * `IDEMPOTENCY_IN_PROGRESS`; past it (the process answering died) a retry runs the request
   * again. Make it longer than the route's slowest answer. Default `1m`.
   */
  readonly lockFor?: string;
}

const DEFAULTS = { expiresIn: "24h", lockFor: "1m" } as const;
const OPTION_KEYS: ReadonlySet<string> = new Set(["required", "expiresIn", "lockFor"]);

/**
 * Answers that depend on when or by whom the request was sent, not on what it asked: a retry with
 * the same key runs again (after signing in, after the budget refills, after the conflict clears).
 */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([401, 403, 408, 409, 423, 425, 429]);

/**
 * Checks an `idempotency` setting where it is given, so a typo fails at build:
 * `true`/`false` or `{required, expiresIn, lockFor}` with durations like `30m` or `24h`. Throws
 * `IDEMPOTENCY_INVALID_OPTION` naming `where`.
 *
 * @example
 * checkIdempotencyOption({ expiresIn: "48h" }, "Order (/orders)");
 */
export function checkIdempotencyOption(option: boolean | IdempotencyOptions | undefined, where: string): void {
  if (option === undefined || typeof option === "boolean") return;
  if (typeof option !== "object" || option === null || Array.isArray(option)) throw IdempotencyErrors.INVALID_OPTION(where, `must be true, false or {required, expiresIn, lockFor}, got ${JSON.stringify(option)}`);
  for (const [name, value] of Object.entries(option)) {
    if (!OPTION_KEYS.has(name)) throw IdempotencyErrors.INVALID_OPTION(where, `has no option "${name}" (use required, expiresIn or lockFor)`);
    if (name === "required" && value !== undefined && typeof value !== "boolean") throw IdempotencyErrors.INVALID_OPTION(where, `required must be a boolean, got ${JSON.stringify(value)}`);
    if (name !== "required" && value !== undefined && (typeof value !== "string" || parseDurationSeconds(value) === undefined)) {
      throw IdempotencyErrors.INVALID_OPTION(where, `${name} must be a duration like 30m, 24h or 7d, got ${JSON.stringify(value)}`);
    }
  }
}

/**
 * A router's `idempotency` setting as the rules it applies, or undefined when it is off
 * (`false`); `true` and an absent setting mean the defaults.
 *
 * @example
 * idempotencyRules(undefined); // {}
 * idempotencyRules(false);     // undefined
 */
export function idempotencyRules(option: boolean | IdempotencyOptions | undefined): IdempotencyOptions | undefined {
  if (option === false) return undefined;
  return option === undefined || option === true ? {} : option;
}

/**
 * Makes a POST route safe to retry, per the IETF's `Idempotency-Key` header draft (as Stripe's
 * API does). A request carrying the header runs once per caller and key: a retry with the same key
 * and the same request gets the first answer again — status, body, `Location` — marked
 * `Idempotent-Replayed: true`, and runs nothing. The same key with another request is 422
 * `IDEMPOTENCY_KEY_REUSED`; a retry while the first request is still running is 409
 * `IDEMPOTENCY_IN_PROGRESS` with `Retry-After`. Successes and client errors are kept for replay;
 * server errors and answers that depend on timing or credentials (401, 403, 408, 409, 423, 425,
 * 429) free the key, so a retry runs again. Keys are stored in the database, so every process of
 * the app shares them. `modelRouter` creates use it unless `idempotency: false`; put it after
 * authentication (the host's runs before every route) so keys are per user.
 *
 * @example
 * start(ctx) {
 *   ctx.resolve(HTTP_ROUTER).post("/payments", idempotent(ctx, { required: true }), charge);
 * }
 */
export function idempotent(ctx: Pick<PluginContext, "logger">, options: IdempotencyOptions = {}, where = "idempotent()"): RequestHandler {
  checkIdempotencyOption(options, where);
  const seconds = (duration: string) => parseDurationSeconds(duration)! * 1000;
  const keys = new IdempotencyKeys(idempotencyKeyModel(), {
    keepMs: seconds(options.expiresIn ?? DEFAULTS.expiresIn),
    lockMs: seconds(options.lockFor ?? DEFAULTS.lockFor),
  });
  const required = options.required === true;
  return async function svcIdempotency(req, res, next) {
    const key = readIdempotencyKey(req.headers["idempotency-key"]);
    if (key === undefined) {
      if (required) throw IdempotencyErrors.KEY_REQUIRED({ detail: `Send an ${IDEMPOTENCY_KEY_HEADER} header (e.g. a new UUID per request, the same one on its retries)`, source: { parameter: IDEMPOTENCY_KEY_HEADER } });
      next();
      return;
    }
    const claim = await keys.claim(idempotencyScope(req), key, requestFingerprint(req));
    if (claim.kind === "replay") {
      replay(res, claim.response);
      return;
    }
    keepAnswer(res, claim, ctx.logger);
    next();
  };
}

function replay(res: Response, response: StoredResponse): void {
  res.status(response.status);
  res.setHeader(IDEMPOTENT_REPLAYED_HEADER, "true");
  if (response.location !== undefined) res.setHeader("Location", response.location);
  if (response.contentType !== undefined) res.setHeader("Content-Type", response.contentType);
  if (response.etag !== undefined) res.setHeader("ETag", response.etag);
  res.end(response.body);
}

/**
 * Stores the answer before it goes out: a client that got it and retries anyway (a lost
 * connection, a double submit) finds it stored, never "in progress". A streamed answer (written
 * in parts) is not kept; the key is freed instead.
 */
function keepAnswer(res: Response, claim: RunningClaim, logger: SvcLogger): void {
  const end = res.end;
  const write = res.write;
  let streamed = false;
  res.write = function (this: Response, ...args: Parameters<Response["write"]>) {
    streamed = true;
    return write.apply(this, args);
  } as Response["write"];
  res.end = function (this: Response, ...args: unknown[]) {
    // While the answer is being stored the response is not sent yet: a second answer (a handler
    // that answered and then threw, whose error reaches the error handler) must not replace it.
    res.end = (() => res) as Response["end"];
    const [chunk, encoding] = args;
    const status = res.statusCode;
    const headers = res.getHeaders();
    const body = typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8") : Buffer.isBuffer(chunk) ? chunk : undefined;
    const kept = !streamed && status < 500 && !RETRYABLE_STATUSES.has(status);
    const settle = kept ? claim.complete({ status, body, contentType: headerOf(res, "Content-Type"), location: headerOf(res, "Location"), etag: headerOf(res, "ETag") }) : claim.release();
    settle
      .catch((error: unknown) => {
        // The answer still goes out; a retry within the claim's lock is told to wait, then runs again.
        logger.error(`${IDEMPOTENCY_KEY_HEADER}: the answer to ${res.req.method} ${res.req.originalUrl} was not ${kept ? "stored" : "released"}: ${error instanceof Error ? error.message : String(error)}`, { requestId: res.req.requestId });
      })
      .finally(() => {
        res.end = end;
        // Undo whatever a second answer set meanwhile (its status, its Content-Length); a streamed
        // answer's head is out already.
        if (!res.headersSent) {
          res.statusCode = status;
          for (const name of res.getHeaderNames()) if (!(name in headers)) res.removeHeader(name);
          for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value);
        }
        (end as (...rest: unknown[]) => Response).apply(res, args);
      });
    return res;
  } as Response["end"];
}

function headerOf(res: Response, name: string): string | undefined {
  const value = res.getHeader(name);
  return value === undefined ? undefined : String(value);
}
