import { randomUUID } from "node:crypto";
import { Schema, type Connection, type InferSchemaType, type Model } from "mongoose";
import { AuthErrors } from "../errors.js";
import { authCollection } from "./auth-collection.js";
import { safeEqual, tokenDigest } from "./token-digest.js";
import type { TokenService } from "./token-service.js";

const refreshTokenSchema = new Schema(
  {
    // The token's `jti`.
    _id: { type: String, required: true },
    familyId: { type: String, required: true, index: true },
    userId: { type: String, required: true, index: true },
    // SHA-256 of the whole token: a database leak yields no usable token.
    tokenHash: { type: String, required: true },
    // TTL: the database forgets a token once it could no longer be presented.
    expiresAt: { type: Date, required: true, expires: 0 },
    rotatedAt: { type: Date },
    revokedAt: { type: Date },
    created: { type: Date, required: true },
  },
  { collection: "svc_auth_refresh_tokens", versionKey: false, strict: "throw" },
);

type RefreshTokenRecord = InferSchemaType<typeof refreshTokenSchema>;

/** A freshly issued refresh token. */
export interface IssuedRefreshToken {
  readonly token: string;
  readonly familyId: string;
}

/** A refresh token `consume` used up: whose it was, its family, and its own id (`jti`). */
export interface ConsumedRefreshToken {
  readonly userId: string;
  readonly familyId: string;
  readonly tokenId: string;
}

/**
 * Server-side refresh tokens with rotation and reuse detection. Every refresh token belongs to a
 * family (one sign-in); using a token rotates it (it is marked used and a successor in the same
 * family is issued). Presenting a token that was already rotated means it was copied: the whole
 * family is revoked, so both the thief and the victim must sign in again.
 *
 * @example
 * const { token } = await store.issue(userId);
 * const consumed = await store.consume(token); // then rotate(consumed)
 */
export class RefreshTokenStore {
  private readonly model: Model<RefreshTokenRecord>;

  constructor(
    connection: Connection,
    private readonly tokens: TokenService,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.model = authCollection(connection, "SvcAuthRefreshToken", refreshTokenSchema);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async issue(userId: string, familyId: string = randomUUID()): Promise<IssuedRefreshToken> {
    const tokenId = randomUUID();
    const { token, expiresAt } = await this.tokens.signRefreshToken(userId, familyId, tokenId);
    await this.model.create({ _id: tokenId, familyId, userId, tokenHash: tokenDigest(token), expiresAt, created: this.now() });
    return { token, familyId };
  }

  /**
   * Verifies and uses up a refresh token. Throws 401 `AUTH_REFRESH_TOKEN_INVALID` (unknown,
   * revoked, forged or expired) or `AUTH_REFRESH_TOKEN_REUSED` (already rotated: family revoked).
   */
  async consume(token: string): Promise<ConsumedRefreshToken> {
    const claims = await this.tokens.verifyRefreshToken(token);
    const now = this.now();
    // Atomic: of two concurrent uses of one token exactly one wins; the other counts as reuse.
    const record = await this.model
      .findOneAndUpdate(
        { _id: claims.tokenId, rotatedAt: { $exists: false }, revokedAt: { $exists: false }, expiresAt: { $gt: now } },
        { $set: { rotatedAt: now } },
      )
      .lean();
    if (!record) {
      const existing = await this.model.findById(claims.tokenId).lean();
      if (existing?.rotatedAt && !existing.revokedAt) {
        await this.revokeFamily(existing.familyId);
        throw AuthErrors.REFRESH_TOKEN_REUSED();
      }
      throw AuthErrors.REFRESH_TOKEN_INVALID();
    }
    if (!safeEqual(record.tokenHash, tokenDigest(token)) || record.familyId !== claims.familyId || record.userId !== claims.userId) {
      await this.revokeFamily(record.familyId);
      throw AuthErrors.REFRESH_TOKEN_INVALID();
    }
    return { userId: record.userId, familyId: record.familyId, tokenId: record._id };
  }

  /**
   * Issues the successor of a token `consume` used up. Until the successor is stored, revoking
   * the family (a reuse of the token) or the user (a new password) cannot reach it: the consumed
   * token, revoked with the others, says so afterwards, and the successor is revoked in turn
   * (401 `AUTH_REFRESH_TOKEN_INVALID`) instead of outliving the revocation.
   */
  async rotate(consumed: ConsumedRefreshToken): Promise<IssuedRefreshToken> {
    const successor = await this.issue(consumed.userId, consumed.familyId);
    const predecessor = await this.model.findById(consumed.tokenId, { revokedAt: 1 }).lean();
    if (!predecessor || predecessor.revokedAt) {
      await this.revokeFamily(consumed.familyId);
      throw AuthErrors.REFRESH_TOKEN_INVALID();
    }
    return successor;
  }

  /** Revokes every token of a family (one sign-in). */
  async revokeFamily(familyId: string): Promise<void> {
    await this.model.updateMany({ familyId, revokedAt: { $exists: false } }, { $set: { revokedAt: this.now() } });
  }

  /** Revokes every refresh token of a user (all sign-ins), e.g. when the account is disabled. */
  async revokeUser(userId: string): Promise<void> {
    await this.model.updateMany({ userId, revokedAt: { $exists: false } }, { $set: { revokedAt: this.now() } });
  }
}
