import { randomBytes } from "node:crypto";
import { Schema, type Connection, type Model } from "mongoose";
import { AuthErrors } from "../errors.js";
import { authCollection } from "../jwt/auth-collection.js";
import { safeEqual, tokenDigest } from "../jwt/token-digest.js";
import type { GitHubProfile } from "./github-client.js";

export type OneTimeCodeKind = "login" | "link";

export interface OneTimeCodeRecord {
  /** SHA-256 of the code; the code itself is never stored. */
  _id: string;
  kind: OneTimeCodeKind;
  userId: string;
  profile?: GitHubProfile;
  codeChallenge?: string;
  expiresAt: Date;
}

const codeSchema = new Schema<OneTimeCodeRecord>(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true, enum: ["login", "link"] },
    userId: { type: String, required: true },
    profile: { type: Schema.Types.Mixed },
    codeChallenge: { type: String },
    expiresAt: { type: Date, required: true, expires: 0 },
  },
  { collection: "svc_auth_one_time_codes", versionKey: false, strict: "throw" },
);

/**
 * Short-lived, single-use codes the OAuth callback hands to the client instead of tokens, so
 * tokens never appear in a URL, browser history or a Referer header. The client redeems a code
 * with a POST. Codes are 256-bit random, stored hashed, expire after `ttlSeconds` (default 120)
 * and are deleted by the first redemption attempt.
 *
 * @example
 * const code = await codes.issue({ kind: "login", userId });
 * const record = await codes.consume(code, "login"); // a second consume throws
 */
export class OneTimeCodes {
  private readonly model: Model<OneTimeCodeRecord>;

  constructor(
    connection: Connection,
    private readonly ttlSeconds = 120,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.model = authCollection(connection, "SvcAuthOneTimeCode", codeSchema);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async issue(record: Omit<OneTimeCodeRecord, "_id" | "expiresAt">): Promise<string> {
    const code = randomBytes(32).toString("base64url");
    await this.model.create({ ...record, _id: tokenDigest(code), expiresAt: new Date(this.now().getTime() + this.ttlSeconds * 1000) });
    return code;
  }

  /**
   * Redeems a code of `kind` (deleting it) and checks the PKCE-style verifier when the flow
   * started with a challenge. Throws 400 `AUTH_OAUTH_CODE_INVALID`.
   */
  async consume(code: unknown, kind: OneTimeCodeKind, codeVerifier?: unknown): Promise<OneTimeCodeRecord> {
    if (typeof code !== "string" || code.length < 16 || code.length > 128) throw AuthErrors.OAUTH_CODE_INVALID();
    const record = await this.model.findOneAndDelete({ _id: tokenDigest(code), kind, expiresAt: { $gt: this.now() } }).lean();
    if (!record) throw AuthErrors.OAUTH_CODE_INVALID();
    if (record.codeChallenge !== undefined) {
      if (typeof codeVerifier !== "string" || !safeEqual(tokenDigest(codeVerifier), record.codeChallenge)) throw AuthErrors.OAUTH_CODE_INVALID();
    }
    return record;
  }
}
