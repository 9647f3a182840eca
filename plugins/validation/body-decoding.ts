import type { NextFunction, Request, RequestHandler, Response } from "express";
import { HttpErrors } from "../../kernel/http-errors.js";

/**
 * Wraps a body parser (`express.json()`, `express.raw()`...) so that a body whose
 * `Content-Encoding` does not decode — gzip, deflate or br bytes that are not — is 400
 * `HTTP_UNDECODABLE_BODY`. body-parser gives a `type` to every error it raises itself
 * (`entity.parse.failed`, `encoding.unsupported`...); the decompression stream's errors arrive
 * untyped, so on an encoded body an untyped error is a decoding failure, whatever zlib or brotli
 * called it. An encoding the parser does not support stays 415 `HTTP_UNSUPPORTED_ENCODING`.
 *
 * @example
 * app.use(decodingFailuresAsClientErrors(express.json()));
 */
export function decodingFailuresAsClientErrors(parser: RequestHandler): RequestHandler {
  return function svcBodyDecoding(req: Request, res: Response, next: NextFunction) {
    return parser(req, res, (error?: unknown) => {
      if (isUndecodable(error, req)) {
        next(HttpErrors.UNDECODABLE_BODY({ detail: "The body does not decode with its Content-Encoding", cause: error }));
        return;
      }
      next(error);
    });
  };
}

function isUndecodable(error: unknown, req: Request): boolean {
  if (typeof error !== "object" || error === null || "type" in error) return false;
  const encoding = String(req.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  return encoding !== "identity" && encoding !== "";
}
