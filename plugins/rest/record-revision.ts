import { createHash } from "node:crypto";
import type { Schema } from "mongoose";
import { RestErrors } from "./errors.js";

/**
 * The path holding a record's revision, when its model has one: mongoose's version key on a
 * schema with `optimisticConcurrency: true`, which every `save()` bumps and checks (a save
 * whose record was saved by another request since it loaded fails instead of overwriting).
 *
 * @example
 * revisionPath(new Schema({ title: String }, { optimisticConcurrency: true })); // "__v"
 */
export function revisionPath(schema: Schema): string | undefined {
  const options = schema.options as { optimisticConcurrency?: unknown; versionKey?: unknown };
  if (options.optimisticConcurrency !== true || options.versionKey === false) return undefined;
  return typeof options.versionKey === "string" ? options.versionKey : "__v";
}

/**
 * A record answer's strong ETag: its revision, then a digest of the exact bytes (so the tag
 * changes with the answer — another field selection, a populated reference — and `If-None-Match`
 * stays right). `If-Match` compares the revision part.
 *
 * @example
 * recordEtag(3, '{"data":{...}}'); // "\"3-Yc9mGx0f1dW2ZkQ8aXbT4Q\""
 */
export function recordEtag(revision: number, body: string): string {
  return `"${revision}-${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
}

/** `"3-…"` → 3; a weak tag (`W/"…"`) never matches (If-Match compares strongly, RFC 9110 §13.1.1). */
const STRONG_TAG = /(W\/)?"([^"]*)"/g;

/**
 * Whether an `If-Match` header holds for a record at `revision`: `*` (any existing record), or
 * one of its strong tags names this revision. Anything else — another revision, a weak tag, a
 * malformed header — does not hold.
 *
 * @example
 * ifMatchHolds('"3-Yc9m…", "4-k2Pq…"', 4); // true
 */
export function ifMatchHolds(header: string, revision: number): boolean {
  if (header.trim() === "*") return true;
  for (const [, weak, tag] of header.matchAll(STRONG_TAG)) {
    if (weak) continue;
    const dash = tag!.indexOf("-");
    if (dash > 0 && tag!.slice(0, dash) === String(revision)) return true;
  }
  return false;
}

/**
 * The `If-Match` check of an update or delete, on the record as loaded: 412
 * `REST_PRECONDITION_FAILED` when the client's tag names another revision; 400
 * `REST_IF_MATCH_UNSUPPORTED` on a model without revisions, so a client that asked for the
 * check is never silently given a write without it.
 *
 * @example
 * checkIfMatch(req.headers["if-match"], "__v", doc.get("__v"), "Todo");
 */
export function checkIfMatch(header: string | undefined, path: string | undefined, revision: unknown, modelName: string): void {
  if (header === undefined) return;
  if (path === undefined) {
    throw RestErrors.IF_MATCH_UNSUPPORTED({
      detail: `${modelName} records have no revision to compare If-Match with (the app can give them one: optimisticConcurrency: true on the schema)`,
      source: { parameter: "If-Match" },
    });
  }
  if (typeof revision !== "number" || !ifMatchHolds(header, revision)) {
    throw RestErrors.PRECONDITION_FAILED({ detail: `This ${modelName} changed since the If-Match tag was read: read it again, then retry with its new ETag`, source: { parameter: "If-Match" } });
  }
}
