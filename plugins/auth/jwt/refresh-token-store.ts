import { randomUUID } from "node:crypto";
import { Schema, type Connection, type InferSchemaType, type Model } from "mongoose";
import type { AccountSignIn } from "../../../contracts/accounts.js";
import { AuthErrors } from "../errors.js";
import type { SignInDevice } from "../http/auth-route.js";
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
    // The sign-in's start and device, copied to each successor: the sign-in list reads them off
    // the family's live token. Where the token was last refreshed from replaces the device's.
    signedInAt: { type: Date },
    userAgent: { type: String },
    ip: { type: String },
  },
  { collection: "svc_auth_refresh_tokens", versionKey: false, strict: "throw" },
);

type RefreshTokenRecord = InferSchemaType<typeof refreshTokenSchema>;

/** Told of each family revoked after its tokens were issued, so its access tokens end too. */
export type FamilyRevoked = (userId: string, familyId: string) => Promise<void>;

/** A freshly issued refresh token. */
export interface IssuedRefreshToken {
  readonly token: string;
  readonly familyId: string;
}

/** A refresh token `consume` used up: whose it was, its family, its own id (`jti`) and the sign-in's start. */
export interface ConsumedRefreshToken {
  readonly userId: string;
  readonly familyId: string;
  readonly tokenId: string;
  readonly signedInAt: Date;
}

/** The most sign-ins `listLive` returns (newest activity first). */
const MAX_LISTED_SIGN_INS = 100;

/**
 * Server-side refresh tokens with rotation and reuse detection. Every refresh token belongs to a
 * family (one sign-in); using a token rotates it (it is marked used and a successor in the same
 * family is issued). Presenting a token that was already rotated means it was copied: the whole
 * family is revoked, so both the thief and the victim must sign in again. A family is a sign-in:
 * `listLive` lists a user's, and every revocation of one is reported to `onFamilyRevoked` (the
 * JWT provider then refuses the family's access tokens too).
 *
 * @example
 * const { token } = await store.issue(userId, { ip: "203.0.113.9", userAgent: "Firefox" });
 * const consumed = await store.consume(token); // then rotate(consumed, device)
 */
export class RefreshTokenStore {
  private readonly model: Model<RefreshTokenRecord>;

  constructor(
    connection: Connection,
    private readonly tokens: TokenService,
    private readonly now: () => Date = () => new Date(),
    private readonly onFamilyRevoked?: FamilyRevoked,
  ) {
    this.model = authCollection(connection, "SvcAuthRefreshToken", refreshTokenSchema);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** A new sign-in's first token, or (with `family`) a successor in an existing sign-in. */
  async issue(userId: string, device: SignInDevice, family?: { id: string; signedInAt: Date }): Promise<IssuedRefreshToken> {
    const tokenId = randomUUID();
    const familyId = family?.id ?? randomUUID();
    const { token, expiresAt } = await this.tokens.signRefreshToken(userId, familyId, tokenId);
    const created = this.now();
    await this.model.create({
      _id: tokenId,
      familyId,
      userId,
      tokenHash: tokenDigest(token),
      expiresAt,
      created,
      signedInAt: family?.signedInAt ?? created,
      ip: device.ip.slice(0, 64),
      userAgent: device.userAgent?.slice(0, 256),
    });
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
        await this.revokeFamily(existing.userId, existing.familyId);
        throw AuthErrors.REFRESH_TOKEN_REUSED();
      }
      throw AuthErrors.REFRESH_TOKEN_INVALID();
    }
    if (!safeEqual(record.tokenHash, tokenDigest(token)) || record.familyId !== claims.familyId || record.userId !== claims.userId) {
      await this.revokeFamily(record.userId, record.familyId);
      throw AuthErrors.REFRESH_TOKEN_INVALID();
    }
    // Tokens stored before sign-ins kept their start: the token's own issue time is the nearest known.
    return { userId: record.userId, familyId: record.familyId, tokenId: record._id, signedInAt: record.signedInAt ?? record.created };
  }

  /**
   * Issues the successor of a token `consume` used up. Until the successor is stored, revoking
   * the family (a reuse of the token) or the user (a new password) cannot reach it: the consumed
   * token, revoked with the others, says so afterwards, and the successor is revoked in turn
   * (401 `AUTH_REFRESH_TOKEN_INVALID`) instead of outliving the revocation.
   */
  async rotate(consumed: ConsumedRefreshToken, device: SignInDevice): Promise<IssuedRefreshToken> {
    const successor = await this.issue(consumed.userId, device, { id: consumed.familyId, signedInAt: consumed.signedInAt });
    const predecessor = await this.model.findById(consumed.tokenId, { revokedAt: 1 }).lean();
    if (!predecessor || predecessor.revokedAt) {
      await this.revokeFamily(consumed.userId, consumed.familyId);
      throw AuthErrors.REFRESH_TOKEN_INVALID();
    }
    return successor;
  }

  /**
   * Revokes every token of a family (one sign-in) of the user, and reports it to
   * `onFamilyRevoked`. False when the user has no such family with a token left to revoke.
   */
  async revokeFamily(userId: string, familyId: string): Promise<boolean> {
    const { modifiedCount } = await this.model.updateMany({ familyId, userId, revokedAt: { $exists: false } }, { $set: { revokedAt: this.now() } });
    if (modifiedCount === 0) return false;
    await this.onFamilyRevoked?.(userId, familyId);
    return true;
  }

  /** When a sign-in of the user that can still be used began; undefined for an ended, unknown or foreign one. */
  async signedInAt(userId: string, familyId: string): Promise<Date | undefined> {
    const record = await this.model
      .findOne({ ...this.live(userId), familyId }, { signedInAt: 1, created: 1 })
      .lean();
    return record ? (record.signedInAt ?? record.created) : undefined;
  }

  /**
   * The user's sign-ins that can still be refreshed (a live token: neither used, revoked nor
   * expired), newest activity first, at most 100.
   */
  async listLive(userId: string): Promise<AccountSignIn[]> {
    const live = await this.model
      .find(this.live(userId))
      .sort({ created: -1 })
      .limit(MAX_LISTED_SIGN_INS)
      .lean();
    return live.map((record) => ({
      id: record.familyId,
      signedInAt: record.signedInAt ?? record.created,
      lastActiveAt: record.created,
      ...(record.userAgent ? { userAgent: record.userAgent } : {}),
      ...(record.ip ? { ip: record.ip } : {}),
    }));
  }

  /** The user's tokens that can still be presented: each is the current token of one sign-in. */
  private live(userId: string) {
    return { userId, rotatedAt: { $exists: false }, revokedAt: { $exists: false }, expiresAt: { $gt: this.now() } };
  }

  /** Revokes every refresh token of a user (all sign-ins), e.g. when the account is disabled. */
  async revokeUser(userId: string): Promise<void> {
    await this.model.updateMany({ userId, revokedAt: { $exists: false } }, { $set: { revokedAt: this.now() } });
  }
}
