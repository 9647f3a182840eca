// What every answer to a hostile request must satisfy, whatever the route: no server fault, the
// one error shape (docs/errors.md) for refusals, nothing of the server's insides in the body, and
// a refusal where the contract demands one.
import type { FuzzRequest } from "./fuzz-request.js";
import type { RawResponse } from "./raw-http-client.js";

/**
 * Text that only reaches a body when internals leak: stack frames, source and dependency paths,
 * the driver's and mongoose's own error texts.
 */
const LEAK_MARKERS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: "a stack frame", pattern: /\bat (?:async )?(?:[\w$.<>[\] ]+ \()?(?:file:\/\/|node:|\/|[A-Za-z]:\\)[^\s"')]*:\d+:\d+/ },
  { name: "a dependency path", pattern: /\/node_modules\// },
  { name: "a source file position", pattern: /\.(?:[cm]?ts|[cm]?js|tsx):\d+/ },
  { name: "a MongoDB server error", pattern: /MongoServerError|MongoError|MongoInvalidArgumentError/ },
  { name: "a duplicate-key error text", pattern: /E11000/ },
  { name: "a mongoose cast message", pattern: /Cast to/ },
  { name: "a BSON error", pattern: /BSON/ },
  { name: "the word mongoose", pattern: /mongoose/i },
];

/**
 * Why the answer breaks the contract, or undefined when it keeps it. A marker that the request
 * itself carried (a 2xx echoing the title it was sent, a 404 naming the path) is not a leak.
 *
 * @example
 * const problem = responseProblem(request, answer); // "status 500: a server fault"
 */
export function responseProblem(request: FuzzRequest, response: RawResponse): string | undefined {
  if (response.status >= 500) return `status ${response.status}: a server fault (must be a 4xx)`;
  const sent = Buffer.concat([Buffer.from(request.path, "latin1"), request.body ?? Buffer.alloc(0)]).toString("latin1");
  const text = response.body.toString("utf8");
  for (const { name, pattern } of LEAK_MARKERS) {
    if (pattern.test(text) && !pattern.test(sent)) return `the body leaks ${name}: ${pattern.exec(text)![0]}`;
  }
  if (response.status >= 400) {
    const shape = errorShapeProblem(response);
    if (shape) return `status ${response.status} without the error shape: ${shape}`;
  }
  if (response.status >= 200 && response.status < 300 && request.mustRefuse) {
    return `status ${response.status}: accepted a request that must be refused (${request.mustRefuse})`;
  }
  return undefined;
}

/**
 * Checks docs/errors.md's shape: `{errors: [{status, title, code?, ...}], requestId}`, each
 * `status` the HTTP status as a string, `requestId` the `X-Request-ID` header.
 */
function errorShapeProblem(response: RawResponse): string | undefined {
  const type = String(response.headers["content-type"] ?? "");
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) return `content-type is "${type}", not JSON`;
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString("utf8"));
  } catch {
    return "the body is not JSON";
  }
  if (!isObject(body)) return "the body is not an object";
  const { errors, requestId } = body;
  if (!Array.isArray(errors) || errors.length === 0) return "no `errors` array";
  for (const error of errors) {
    if (!isObject(error)) return "an error is not an object";
    if (error.status !== String(response.status)) return `an error's status is ${JSON.stringify(error.status)}, not "${response.status}"`;
    if (typeof error.title !== "string" || error.title.length === 0) return "an error has no title";
    if (error.code !== undefined && typeof error.code !== "string") return "an error's code is not a string";
    if (error.detail !== undefined && typeof error.detail !== "string") return "an error's detail is not a string";
  }
  if (typeof requestId !== "string" || requestId.length === 0) return "no `requestId`";
  if (response.headers["x-request-id"] !== requestId) return "`requestId` differs from the X-Request-ID header";
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
