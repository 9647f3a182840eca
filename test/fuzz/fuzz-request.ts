// One hostile request as it goes on the wire, and how it is shown in a failure message. Bodies
// are bytes, not strings: invalid UTF-8 and undecodable encodings are the point of some cases,
// and a string would have normalised them away.

/** A request the harness sends, with what it attacks and why a 2xx answer would be wrong. */
export interface FuzzRequest {
  /** The documented operation it targets, e.g. `PATCH /todos/{id}`. */
  readonly operation: string;
  readonly method: string;
  /** Path and query exactly as sent: malformed percent-encoding stays malformed. */
  readonly path: string;
  /** Header values; an array sends the header once per value. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: Buffer;
  /** Who sends it: `anonymous`, `user`, `other user`, `admin`, or the forged credential. */
  readonly actor: string;
  /** The hostile inputs it carries, for the reader of a failure. */
  readonly attacks: readonly string[];
  /** Set when the contract says the request must be refused: why a 2xx would be a defect. */
  readonly mustRefuse?: string;
}

const BODY_PREVIEW = 800;
const PATH_PREVIEW = 600;

/**
 * The request as a reader wants it in a failure: method, path, headers and body, with bytes
 * outside printable ASCII escaped (`\x00`, `\xff`) so NUL and invalid UTF-8 stay visible.
 *
 * @example
 * describeRequest(request); // "POST /todos\n  content-type: application/json\n  body (17 bytes): {\"title\":\"a\\x00\"}"
 */
export function describeRequest(request: FuzzRequest): string {
  const lines = [`${request.method} ${preview(Buffer.from(request.path, "latin1"), PATH_PREVIEW)}`];
  lines.push(`  actor: ${request.actor}`);
  if (request.attacks.length > 0) lines.push(`  attacks: ${request.attacks.join("; ")}`);
  for (const [name, value] of Object.entries(request.headers)) {
    for (const one of typeof value === "string" ? [value] : value) lines.push(`  ${name}: ${preview(Buffer.from(one, "latin1"), 300)}`);
  }
  if (request.body !== undefined) lines.push(`  body (${request.body.length} bytes): ${preview(request.body, BODY_PREVIEW)}`);
  return lines.join("\n");
}

/**
 * Printable ASCII as is, everything else as `\xNN`; long inputs keep their start and say how
 * long they were, so a 1 MB body does not drown the message.
 *
 * @example
 * preview(Buffer.from([0x61, 0x00, 0xff]), 100); // "a\\x00\\xff"
 */
export function preview(bytes: Buffer, limit: number): string {
  let text = "";
  for (const byte of bytes.subarray(0, limit)) {
    text += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, "0")}`;
  }
  return bytes.length > limit ? `${text}… (${bytes.length} bytes in all)` : text;
}
