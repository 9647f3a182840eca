import { defineErrors } from "./errors.js";

/**
 * Errors of the HTTP layer itself, shared by the host and every plugin: one code per meaning, so
 * "sign in required" reads the same whichever plugin's route answered.
 *
 * @example
 * if (!req.user) throw HttpErrors.UNAUTHENTICATED();
 * throw HttpErrors.FORBIDDEN({ detail: "Only admins may change flags" });
 */
export const HttpErrors = defineErrors("HTTP", {
  /** No route matches the method and path. */
  NOT_FOUND: { status: 404, title: "Not found" },
  /** The route needs a signed-in user and the request has none. */
  UNAUTHENTICATED: { status: 401, title: "Authentication required" },
  /** The signed-in user may not do this. */
  FORBIDDEN: { status: 403, title: "Forbidden" },
  PAYLOAD_TOO_LARGE: { status: 413, title: "Request body too large" },
  /** The query string has more parameters than the host reads (1000): the rest would be dropped. */
  TOO_MANY_QUERY_PARAMETERS: { status: 413, title: "Too many query parameters" },
  /** The body is not valid JSON (or its framing is broken). */
  MALFORMED_BODY: { status: 400, title: "Malformed JSON body" },
  /** The body's `Content-Encoding` (gzip, deflate, br) is supported, but its bytes do not decode. */
  UNDECODABLE_BODY: { status: 400, title: "Body does not decode" },
  UNSUPPORTED_ENCODING: { status: 415, title: "Unsupported content encoding" },
  UNSUPPORTED_CHARSET: { status: 415, title: "Unsupported charset" },
  /** A route that takes JSON got a body in another media type (a form, plain text...). */
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "Unsupported media type" },
  REQUEST_ABORTED: { status: 400, title: "Request aborted" },
  /**
   * A lower layer (the router, a body parser, a third-party middleware) refused the request
   * with a client error that has no more specific code here.
   */
  BAD_REQUEST: { status: 400, title: "Bad request" },
  /** A path segment is not valid percent-encoding (`/todos/%zz`), so no route can read it. */
  MALFORMED_PATH: { status: 400, title: "Malformed path" },
  /** The request is not valid HTTP/1.1 (framing, request line, header syntax); Node refused it before the app. */
  MALFORMED_REQUEST: { status: 400, title: "Malformed request" },
  /** The request's headers exceed the server's limit (Node's `maxHeaderSize`, 16 KiB by default). */
  HEADERS_TOO_LARGE: { status: 431, title: "Request header fields too large" },
  /** The request was not received in full within the server's time limit. */
  REQUEST_TIMEOUT: { status: 408, title: "Request timeout" },
  /** An `Expect` header other than `100-continue`. */
  EXPECTATION_FAILED: { status: 417, title: "Expectation failed" },
  /** The caller spent its request budget (a throttled route); `meta.retryAfterSeconds`, sent as `Retry-After`, says when to try again. */
  RATE_LIMITED: { status: 429, title: "Too many requests" },
  /** `GET /readyz`: a dependency the app needs (the database, Redis) does not answer; `meta.checks` says which. */
  NOT_READY: { status: 503, title: "Service unavailable" },
  /** Anything unexpected: no message or stack reaches the client (both are logged). */
  INTERNAL: { status: 500, title: "Internal server error" },
});
