import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from "jose";
import { AuthErrors } from "../errors.js";
import { SIGN_IN_ID_CLAIM } from "../users/ended-sign-ins.js";
import { SIGN_IN_VERSION_CLAIM, signInVersionOf } from "../users/sign-in-version.js";

/** Which kind of token a JWT is; checked on every verification so one never works as the other. */
export type TokenUse = "access" | "refresh";

/** Claims only the framework sets; a host's `generateJWTPayload` cannot override them. */
export const RESERVED_CLAIMS = ["iss", "sub", "aud", "exp", "nbf", "iat", "jti", "token_use", "fam", SIGN_IN_VERSION_CLAIM, SIGN_IN_ID_CLAIM] as const;

export interface TokenServiceOptions {
  accessSecret: string;
  refreshSecret: string;
  issuer: string;
  /**
   * The `aud` every token is issued for and must carry to verify, so tokens of another service
   * signed with the same secrets and issuer are refused. None when undefined.
   */
  audience?: string;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  /** The current time; tests inject one to issue already-expired tokens. */
  now?: () => Date;
}

export interface VerifiedAccessToken {
  readonly userId: string;
  /** The user's sign-in version when the token was issued (users/sign-in-version.ts). */
  readonly signInVersion: number;
  /** The sign-in (refresh-token family) the token belongs to; absent on tokens from before sign-ins had ids. */
  readonly signInId?: string;
  readonly claims: JWTPayload;
}

/** Which sign-in an access token is issued for: the user's sign-in version, and the sign-in's id. */
export interface SignInClaims {
  /** The user's current sign-in version (0, the default, is left out of the token). */
  readonly version?: number;
  /** The refresh-token family of the sign-in (claim `sid`). */
  readonly id?: string;
}

export interface VerifiedRefreshToken {
  readonly userId: string;
  readonly familyId: string;
  readonly tokenId: string;
  readonly expiresAt: Date;
}

// Pinned: jose refuses `alg: none` outright, and pinning HS256 also refuses algorithm confusion
// (an RS256/ES256 header presented against our symmetric key).
const ALGORITHM = "HS256";
const ACCESS_TYPE = "at+jwt";
const REFRESH_TYPE = "rt+jwt";

/**
 * Issues and verifies the JWT provider's tokens with jose. Access and refresh tokens use
 * different secrets *and* carry a different `token_use` claim and `typ` header, so neither is
 * accepted as the other even if the secrets were equal. Verification checks the signature,
 * algorithm, issuer, audience (when one is set), expiry and token kind.
 *
 * @example
 * const tokens = new TokenService({ accessSecret, refreshSecret, issuer: "svc", accessTokenSeconds: 900, refreshTokenSeconds: 2_592_000 });
 * const jwt = await tokens.signAccessToken("66f0…", { admin: false }, { version: 0, id: familyId });
 * (await tokens.verifyAccessToken(jwt)).userId; // "66f0…"
 */
export class TokenService {
  private readonly accessKey: Uint8Array;
  private readonly refreshKey: Uint8Array;
  private readonly now: () => Date;

  constructor(private readonly options: TokenServiceOptions) {
    this.accessKey = new TextEncoder().encode(options.accessSecret);
    this.refreshKey = new TextEncoder().encode(options.refreshSecret);
    this.now = options.now ?? (() => new Date());
  }

  async signAccessToken(userId: string, claims: Readonly<Record<string, unknown>> = {}, signIn: SignInClaims = {}): Promise<string> {
    const payload: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(claims)) {
      if (!(RESERVED_CLAIMS as readonly string[]).includes(name)) payload[name] = value;
    }
    payload.token_use = "access" satisfies TokenUse;
    if (signIn.version !== undefined && signIn.version > 0) payload[SIGN_IN_VERSION_CLAIM] = signIn.version;
    if (signIn.id !== undefined) payload[SIGN_IN_ID_CLAIM] = signIn.id;
    const issuedAt = this.seconds();
    return this.addressed(new SignJWT(payload))
      .setProtectedHeader({ alg: ALGORITHM, typ: ACCESS_TYPE })
      .setIssuer(this.options.issuer)
      .setSubject(userId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.options.accessTokenSeconds)
      .sign(this.accessKey);
  }

  async signRefreshToken(userId: string, familyId: string, tokenId: string): Promise<{ token: string; expiresAt: Date }> {
    const issuedAt = this.seconds();
    const expires = issuedAt + this.options.refreshTokenSeconds;
    const token = await this.addressed(new SignJWT({ token_use: "refresh" satisfies TokenUse, fam: familyId }))
      .setProtectedHeader({ alg: ALGORITHM, typ: REFRESH_TYPE })
      .setIssuer(this.options.issuer)
      .setSubject(userId)
      .setJti(tokenId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expires)
      .sign(this.refreshKey);
    return { token, expiresAt: new Date(expires * 1000) };
  }

  /**
   * The sign-in an access token belongs to (claim `sid`), for a route that already authenticated
   * it; undefined for a token without one, or that does not verify.
   */
  async signInIdOf(accessToken: string | undefined): Promise<string | undefined> {
    if (accessToken === undefined) return undefined;
    return (await this.verifyAccessToken(accessToken).catch(() => undefined))?.signInId;
  }

  /** Throws `AUTH_TOKEN_EXPIRED` or `AUTH_TOKEN_INVALID` (401). */
  async verifyAccessToken(token: string): Promise<VerifiedAccessToken> {
    const payload = await this.verify(token, this.accessKey, ACCESS_TYPE, "access", AuthErrors.TOKEN_INVALID);
    const signInId = payload[SIGN_IN_ID_CLAIM];
    return { userId: payload.sub!, signInVersion: signInVersionOf(payload[SIGN_IN_VERSION_CLAIM]), signInId: typeof signInId === "string" ? signInId : undefined, claims: payload };
  }

  /** Throws `AUTH_REFRESH_TOKEN_INVALID` (401), also for an expired one. */
  async verifyRefreshToken(token: string): Promise<VerifiedRefreshToken> {
    const payload = await this.verify(token, this.refreshKey, REFRESH_TYPE, "refresh", AuthErrors.REFRESH_TOKEN_INVALID);
    if (typeof payload.fam !== "string" || typeof payload.jti !== "string") throw AuthErrors.REFRESH_TOKEN_INVALID();
    return { userId: payload.sub!, familyId: payload.fam, tokenId: payload.jti, expiresAt: new Date(payload.exp! * 1000) };
  }

  private async verify(
    token: string,
    key: Uint8Array,
    typ: string,
    use: TokenUse,
    invalid: typeof AuthErrors.TOKEN_INVALID,
  ): Promise<JWTPayload> {
    if (typeof token !== "string" || token.length === 0 || token.length > 8192) throw invalid();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: [ALGORITHM],
        issuer: this.options.issuer,
        ...(this.options.audience === undefined ? {} : { audience: this.options.audience }),
        typ,
        requiredClaims: ["sub", "iat", "exp"],
        currentDate: this.now(),
      }));
    } catch (error) {
      // AUTH_TOKEN_EXPIRED tells a client to refresh; said of a refresh token, it would loop.
      if (error instanceof joseErrors.JWTExpired) throw use === "access" ? AuthErrors.TOKEN_EXPIRED() : invalid({ detail: "The refresh token expired; sign in again" });
      throw invalid();
    }
    if (payload.token_use !== use || typeof payload.sub !== "string" || payload.sub.length === 0) throw invalid();
    return payload;
  }

  /** The token with its `aud`, when the service has one. */
  private addressed(token: SignJWT): SignJWT {
    return this.options.audience === undefined ? token : token.setAudience(this.options.audience);
  }

  private seconds(): number {
    return Math.floor(this.now().getTime() / 1000);
  }
}
