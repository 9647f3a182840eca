import { randomBytes } from "node:crypto";
import { Schema, type Connection, type Model } from "mongoose";
import { authCollection } from "./auth-collection.js";
import { tokenDigest } from "./token-digest.js";

interface ResetTokenRecord {
  /** SHA-256 of the token; the token itself is only in the mail. */
  _id: string;
  userId: string;
  expiresAt: Date;
  created: Date;
}

const resetTokenSchema = new Schema<ResetTokenRecord>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true, index: true },
    // TTL: the database forgets a link once it could no longer be used.
    expiresAt: { type: Date, required: true, expires: 0 },
    created: { type: Date, required: true },
  },
  { collection: "svc_auth_password_resets", versionKey: false, strict: "throw" },
);

/** A token's shape before any lookup: what `randomBytes(32)` gives in base64url, nothing else. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The single-use tokens of password-reset links: 256-bit random, stored hashed, valid for
 * `ttlSeconds`. A user has at most one: asking again replaces the link sent before, so only the
 * newest mail works.
 *
 * @example
 * const { token, expiresAt } = await resets.issue(userId);
 * const userId = await resets.consume(token); // undefined when unknown, used or expired
 */
export class PasswordResetTokens {
  private readonly model: Model<ResetTokenRecord>;

  constructor(
    connection: Connection,
    private readonly ttlSeconds: number,
    private readonly now: () => Date,
  ) {
    this.model = authCollection(connection, "SvcAuthPasswordReset", resetTokenSchema);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async issue(userId: string): Promise<{ token: string; expiresAt: Date }> {
    const token = randomBytes(32).toString("base64url");
    const created = this.now();
    const expiresAt = new Date(created.getTime() + this.ttlSeconds * 1000);
    await this.model.deleteMany({ userId });
    await this.model.create({ _id: tokenDigest(token), userId, expiresAt, created });
    return { token, expiresAt };
  }

  /** Whose a still-valid token is, without using it up (the new password is checked first). */
  async peek(token: string): Promise<string | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const record = await this.model.findOne({ _id: tokenDigest(token), expiresAt: { $gt: this.now() } }).lean();
    return record?.userId;
  }

  /** Uses a token up (deleting it): whose it was, or undefined when unknown, used or expired. */
  async consume(token: string): Promise<string | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const record = await this.model.findOneAndDelete({ _id: tokenDigest(token), expiresAt: { $gt: this.now() } }).lean();
    return record?.userId;
  }

  /** Forgets the user's link (their password was set another way). */
  async revokeUser(userId: string): Promise<void> {
    await this.model.deleteMany({ userId });
  }
}
