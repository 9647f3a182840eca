// Headers besides the credential and the body's own that the stack reads: the request id the
// logs carry, content negotiation, CORS, proxies and conditional requests. Values stay within
// what Node lets a client send (no CR/LF); oversized headers are Node's to refuse, before the app.
import fc from "fast-check";

/** One extra header. */
export interface HeaderPlan {
  readonly name: string;
  readonly value: string;
  readonly label: string;
}

const HEADERS: readonly HeaderPlan[] = [
  { name: "x-request-id", value: "../../../etc/passwd", label: "a path as the request id" },
  { name: "x-request-id", value: "x".repeat(4_000), label: "a 4000-character request id" },
  { name: "x-request-id", value: '{"$gt":""}', label: "an operator as the request id" },
  { name: "x-request-id", value: "\u00ff\u00fe", label: "latin-1 bytes as the request id" },
  { name: "accept", value: "application/xml", label: "Accept: application/xml" },
  { name: "accept", value: "*/*;q=abc", label: "a malformed Accept" },
  { name: "accept-encoding", value: "gzip;q=x, fuzz", label: "a malformed Accept-Encoding" },
  { name: "accept-charset", value: "utf-7", label: "Accept-Charset utf-7" },
  { name: "origin", value: "https://evil.example", label: "a foreign Origin" },
  { name: "origin", value: "null", label: "Origin null" },
  { name: "x-forwarded-for", value: "not-an-ip, ::ffff:999.1.1.1", label: "a malformed X-Forwarded-For" },
  { name: "x-forwarded-proto", value: "gopher", label: "a strange X-Forwarded-Proto" },
  { name: "x-forwarded-host", value: "evil.example", label: "a foreign X-Forwarded-Host" },
  { name: "cookie", value: "session=%E0%A4%A; __proto__=1; =; ;", label: "malformed cookies" },
  { name: "if-none-match", value: "*", label: "If-None-Match *" },
  { name: "if-modified-since", value: "not a date", label: "a malformed If-Modified-Since" },
  { name: "range", value: "bytes=999999999-", label: "an unsatisfiable Range" },
  { name: "x-http-method-override", value: "DELETE", label: "X-HTTP-Method-Override: DELETE" },
  { name: "content-language", value: "\u00ff", label: "a latin-1 Content-Language" },
];

/** Zero to two extra headers, most requests none. */
export function headerPlans(): fc.Arbitrary<readonly HeaderPlan[]> {
  return fc.oneof({ weight: 5, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...HEADERS), { minLength: 1, maxLength: 2, selector: (header) => header.name }) });
}
