import type { IncomingMessage } from "node:http";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The exact request body bytes, kept by the JSON parser for signature checks. */
      rawBody?: Buffer;
    }
  }
}

/**
 * A body-parser `verify` hook that keeps the raw bytes as `req.rawBody` (the parsed body is
 * re-serialised differently, so HMAC signatures must be checked on these bytes). The app's JSON
 * parser uses it; add it to any parser of your own with `express.json({ verify: captureRawBody })`.
 *
 * @example
 * router.use(express.urlencoded({ extended: false, verify: captureRawBody }));
 */
export function captureRawBody(req: IncomingMessage, _res: unknown, buffer: Buffer): void {
  (req as IncomingMessage & { rawBody?: Buffer }).rawBody = buffer;
}
