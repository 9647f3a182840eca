import type { Request } from "express";
import { HttpErrors } from "../../kernel/http-errors.js";

/**
 * The media types the app's body parser reads as JSON: `application/json` and every `+json`
 * type (`application/merge-patch+json`, `application/vnd.api+json`...).
 *
 * @example
 * express.json({ type: [...JSON_MEDIA_TYPES] });
 */
export const JSON_MEDIA_TYPES: readonly string[] = Object.freeze(["application/json", "application/*+json"]);

// `req.is` wants a mutable array: one copy, not one per request.
const jsonTypes = [...JSON_MEDIA_TYPES];

/** True when the request carries body bytes: a chunked body, or a Content-Length above zero. */
export function carriesBody(req: Request): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = Number(req.headers["content-length"]);
  return Number.isFinite(length) && length > 0;
}

/**
 * Refuses, with 415 `HTTP_UNSUPPORTED_MEDIA_TYPE`, a body sent to a route that takes JSON in
 * any other media type (a form, plain text, no Content-Type at all). Without this check such a
 * body is never parsed, and the route answers as if it were empty ("title: is required"), which
 * sends the client looking in the wrong place. A body a parser of the host's own already read
 * (`req.body` set, e.g. by `express.urlencoded()`) is accepted: that route chose to take it.
 * Every shared body check calls it (generated routes, `validateRequestBody`, auth routes).
 *
 * @example
 * router.post("/search", (req, res) => {
 *   requireJsonBody(req);
 *   res.json({ data: search(req.body) });
 * });
 */
export function requireJsonBody(req: Request): void {
  if (!carriesBody(req) || req.body !== undefined) return;
  if (req.is(jsonTypes)) return;
  throw HttpErrors.UNSUPPORTED_MEDIA_TYPE({ detail: "This route takes a JSON body: send it with Content-Type: application/json" });
}
