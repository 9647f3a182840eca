import mongoose, { Schema, type Model } from "mongoose";

/** The response kept for replay: what the first request was answered with. */
export interface StoredResponse {
  status: number;
  /** The body's bytes, exactly as sent (absent for a 204). */
  body?: Buffer;
  contentType?: string;
  location?: string;
  /** The answer's ETag (a created record's revision, for its first If-Match). */
  etag?: string;
}

/**
 * One `Idempotency-Key` of one caller. While the first request runs it holds a claim (`claim`,
 * `lockedUntil`); once answered, the response.
 */
export interface IdempotencyKeyFields {
  /** Who used the key: `user:<id>`, or `ip:<address>` for anonymous callers. */
  scope: string;
  key: string;
  /** SHA-256 of the method, path and body bytes: the same key with another request is refused. */
  fingerprint: string;
  /** The claim of the request running now (absent once answered). */
  claim?: string;
  lockedUntil?: Date;
  response?: StoredResponse;
  expiresAt: Date;
}

const responseSchema = new Schema<StoredResponse>(
  {
    status: { type: Number, required: true, description: "The HTTP status it was answered with" },
    body: { type: Buffer, description: "The response body's bytes" },
    contentType: { type: String, description: "The response's Content-Type" },
    location: { type: String, description: "The response's Location (a created record's URL)" },
    etag: { type: String, description: "The response's ETag" },
  },
  { _id: false, strict: "throw" },
);

const schema = new Schema<IdempotencyKeyFields>(
  {
    scope: { type: String, required: true, description: "Who used the key: user:<id>, or ip:<address> when anonymous" },
    key: { type: String, required: true, description: "The client's Idempotency-Key" },
    fingerprint: { type: String, required: true, description: "SHA-256 of the request's method, path and body" },
    claim: { type: String, description: "The claim of the request answering it now" },
    lockedUntil: { type: Date, description: "Until when that request holds the key (then another may take it over)" },
    response: { type: responseSchema, description: "The first answer, replayed to retries" },
    expiresAt: { type: Date, required: true, description: "When the key may be used again for another request" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.index({ scope: 1, key: 1 }, { unique: true });
// MongoDB's TTL monitor removes keys within a minute of expiry; until then reads treat them as gone.
schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

/**
 * The `SvcIdempotencyKey` model: the keys clients sent with `Idempotency-Key`, and the first
 * answer to each.
 *
 * @example
 * await idempotencyKeyModel().countDocuments({ scope: `user:${userId}` });
 */
export function idempotencyKeyModel(): Model<IdempotencyKeyFields> {
  return (mongoose.models.SvcIdempotencyKey as Model<IdempotencyKeyFields> | undefined) ?? mongoose.model<IdempotencyKeyFields>("SvcIdempotencyKey", schema);
}
