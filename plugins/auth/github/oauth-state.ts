import { createHash, randomBytes } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import { AuthErrors } from "../errors.js";

/** What the `state` parameter of an OAuth round trip carries, signed and short-lived. */
export interface OAuthState {
  /** `login` signs in or signs up; `link` attaches the identity to `userId`. */
  readonly mode: "login" | "link";
  /** The user who asked to link (link mode only). */
  readonly userId?: string;
  /** Where the callback sends the browser (already allowlisted), if anywhere. */
  readonly returnTo?: string;
  /** Login mode: random value also set as an httpOnly cookie, tying the callback to this browser. */
  readonly nonce: string;
  /** Optional PKCE-style S256 challenge the one-time code exchange must answer. */
  readonly codeChallenge?: string;
}

const PURPOSE = "svc-oauth-state";
const ALGORITHM = "HS256";

/**
 * Signs and verifies OAuth `state` values with a dedicated secret (`SESSION_SECRET`). A state is
 * valid for `ttlSeconds` (10 minutes by default) and for one provider only, so it cannot be
 * replayed against another provider's callback or forged to point `returnTo` elsewhere.
 *
 * @example
 * const states = new OAuthStateSigner(secret, "github");
 * const state = await states.sign({ mode: "login", nonce: OAuthStateSigner.nonce() });
 * (await states.verify(state)).mode; // "login"
 */
export class OAuthStateSigner {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly provider: string,
    private readonly ttlSeconds = 600,
    private readonly now: () => Date = () => new Date(),
  ) {
    // Derive a purpose-bound key so SESSION_SECRET's other uses can never produce a valid state.
    this.key = createHash("sha256").update(`${PURPOSE}:${secret}`).digest();
  }

  /** A fresh random nonce (256 bits, base64url). */
  static nonce(): string {
    return randomBytes(32).toString("base64url");
  }

  async sign(state: OAuthState): Promise<string> {
    const issuedAt = Math.floor(this.now().getTime() / 1000);
    const claims: Record<string, unknown> = { purpose: PURPOSE, provider: this.provider, mode: state.mode, nonce: state.nonce };
    if (state.userId !== undefined) claims.uid = state.userId;
    if (state.returnTo !== undefined) claims.rt = state.returnTo;
    if (state.codeChallenge !== undefined) claims.cc = state.codeChallenge;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM })
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.ttlSeconds)
      .sign(this.key);
  }

  /** Throws 400 `AUTH_OAUTH_STATE_INVALID` for a forged, expired or foreign state. */
  async verify(state: unknown): Promise<OAuthState> {
    if (typeof state !== "string" || state.length === 0 || state.length > 4096) throw AuthErrors.OAUTH_STATE_INVALID();
    try {
      const { payload } = await jwtVerify(state, this.key, { algorithms: [ALGORITHM], currentDate: this.now() });
      const { purpose, provider, mode, nonce, uid, rt, cc } = payload;
      if (purpose !== PURPOSE || provider !== this.provider || typeof nonce !== "string") throw new Error("foreign state");
      if (mode !== "login" && !(mode === "link" && typeof uid === "string")) throw new Error("bad mode");
      return {
        mode,
        nonce,
        userId: typeof uid === "string" ? uid : undefined,
        returnTo: typeof rt === "string" ? rt : undefined,
        codeChallenge: typeof cc === "string" ? cc : undefined,
      };
    } catch {
      throw AuthErrors.OAUTH_STATE_INVALID();
    }
  }
}
