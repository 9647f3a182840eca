import { randomBytes } from "node:crypto";
import { Schema, type Connection, type Model } from "mongoose";
import { authCollection } from "./auth-collection.js";
import { tokenDigest } from "./token-digest.js";

interface LinkTokenRecord {
  /** SHA-256 of the token; the token itself is only in the mail. */
  _id: string;
  userId: string;
  /** The address a link confirms, when it is not the account's own (an email change). */
  email?: string;
  expiresAt: Date;
  created: Date;
}

/** Whose a used-up link was, and the address it confirms (email change). */
export interface ConsumedLink {
  readonly userId: string;
  readonly email?: string;
}

/** Which links a store keeps: its model name and collection (one per purpose). */
export interface LinkKind {
  readonly modelName: string;
  readonly collection: string;
}

/** Password-reset links (`svc_auth_password_resets`). */
export const PASSWORD_RESET_LINKS: LinkKind = { modelName: "SvcAuthPasswordReset", collection: "svc_auth_password_resets" };
/** Email-verification links (`svc_auth_email_verifications`). */
export const EMAIL_VERIFICATION_LINKS: LinkKind = { modelName: "SvcAuthEmailVerification", collection: "svc_auth_email_verifications" };
/** Email-change confirmation links, each with the new address (`svc_auth_email_changes`). */
export const EMAIL_CHANGE_LINKS: LinkKind = { modelName: "SvcAuthEmailChange", collection: "svc_auth_email_changes" };

/** A token's shape before any lookup: what `randomBytes(32)` gives in base64url, nothing else. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The single-use tokens of the links auth mails (password reset, email verification and change): 256-bit
 * random, stored hashed, valid for `ttlSeconds`. A user has at most one of a kind: asking again
 * replaces the link sent before, so only the newest mail works.
 *
 * @example
 * const { token, expiresAt } = await links.issue(userId);
 * const used = await links.consume(token); // {userId}, or undefined when unknown, used or expired
 */
export class LinkTokens {
  private readonly model: Model<LinkTokenRecord>;

  constructor(
    connection: Connection,
    kind: LinkKind,
    private readonly ttlSeconds: number,
    private readonly now: () => Date,
  ) {
    const schema = new Schema<LinkTokenRecord>(
      {
        _id: { type: String, required: true },
        userId: { type: String, required: true, index: true },
        email: { type: String },
        // TTL: the database forgets a link once it could no longer be used.
        expiresAt: { type: Date, required: true, expires: 0 },
        created: { type: Date, required: true },
      },
      { collection: kind.collection, versionKey: false, strict: "throw" },
    );
    this.model = authCollection(connection, kind.modelName, schema);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** A new link for the user (the one sent before stops working); `email` is what it confirms, if not the account's own. */
  async issue(userId: string, email?: string): Promise<{ token: string; expiresAt: Date }> {
    const token = randomBytes(32).toString("base64url");
    const created = this.now();
    const expiresAt = new Date(created.getTime() + this.ttlSeconds * 1000);
    await this.model.deleteMany({ userId });
    await this.model.create({ _id: tokenDigest(token), userId, ...(email === undefined ? {} : { email }), expiresAt, created });
    return { token, expiresAt };
  }

  /** Uses a token up (deleting it): whose it was, or undefined when unknown, used or expired. */
  async consume(token: string): Promise<ConsumedLink | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const record = await this.model.findOneAndDelete({ _id: tokenDigest(token), expiresAt: { $gt: this.now() } }).lean();
    if (!record) return undefined;
    return record.email === undefined ? { userId: record.userId } : { userId: record.userId, email: record.email };
  }

  /** Forgets the user's link (e.g. their password was set another way). */
  async revokeUser(userId: string): Promise<void> {
    await this.model.deleteMany({ userId });
  }
}
