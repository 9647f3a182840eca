import { isDuplicateKeyError } from "../../../contracts/database.js";
import type { RequestUser } from "../../../contracts/request-user.js";
import { isAPIError } from "../../../kernel/api-error.js";
import { requestValidationError } from "../../validation/index.js";
import { AuthErrors } from "../errors.js";
import type { SignInDevice } from "../http/auth-route.js";
import { allowedReturnTo } from "../http/return-to.js";
import type { JwtAuthService, SignInResult } from "../jwt/jwt-auth-service.js";
import type { PasswordCredentials } from "../jwt/password-credentials.js";
import { safeEqual } from "../jwt/token-digest.js";
import type { UserDirectory, UserRecord } from "../users/user-directory.js";
import type { GitHubClient, GitHubProfile } from "./github-client.js";
import { OAuthStateSigner, type OAuthState } from "./oauth-state.js";
import type { OneTimeCodes } from "./one-time-codes.js";

export interface GitHubSignInOptions {
  users: UserDirectory;
  credentials: PasswordCredentials;
  client: GitHubClient;
  states: OAuthStateSigner;
  codes: OneTimeCodes;
  jwt: JwtAuthService;
  allowAccountLinking: boolean;
  signupDisabled: boolean;
  allowedReturnOrigins: readonly string[];
  defaultReturnTo?: string;
  now?: () => Date;
}

/** Where the callback sends the browser, or what it answers when there is nowhere to go. */
export type CallbackOutcome =
  | { readonly redirect: string }
  | { readonly data: { authCode: string } | { linkCode: string } };

const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * GitHub sign-in, sign-up and account linking for the JWT provider.
 *
 * Flow: `GET /auth/github` redirects to GitHub with a signed `state` (mode, allowlisted
 * `returnTo`, nonce, optional code challenge) and sets the nonce as an httpOnly cookie; the
 * callback checks both, exchanges the code, resolves the user and redirects to `returnTo` with a
 * one-time `authCode` (never tokens), which the client redeems with `POST /auth/github/token`.
 * Linking is the same round trip started by an authenticated `GET /auth/github/link` and
 * finished by an authenticated `POST /auth/github/link`, so a link started by one user can never
 * be completed into another user's account.
 *
 * @example
 * const { url, nonce } = await github.begin({ returnTo: "https://app.example.com/after" });
 */
export class GitHubSignIn {
  constructor(private readonly options: GitHubSignInOptions) {}

  /** Login/sign-up start: the GitHub URL and the nonce to set as a cookie. */
  async begin(query: Record<string, unknown>): Promise<{ url: string; nonce: string }> {
    const nonce = OAuthStateSigner.nonce();
    const state = await this.options.states.sign({
      mode: "login",
      nonce,
      returnTo: this.returnTo(query.returnTo),
      codeChallenge: this.codeChallenge(query.codeChallenge),
    });
    return { url: this.options.client.authorizeUrl(state), nonce };
  }

  /** Link start for the signed-in user: the GitHub URL to open. */
  async beginLink(user: RequestUser, query: Record<string, unknown>): Promise<string> {
    const state = await this.options.states.sign({
      mode: "link",
      userId: user.id,
      nonce: OAuthStateSigner.nonce(),
      returnTo: this.returnTo(query.returnTo),
    });
    return this.options.client.authorizeUrl(state);
  }

  /**
   * The callback. An unverifiable state is an error response (there is no trusted place to
   * redirect to); after that, failures are reported to `returnTo` as `authError=<code>`.
   */
  async callback(query: Record<string, unknown>, cookieNonce: string | undefined): Promise<CallbackOutcome> {
    const state = await this.options.states.verify(query.state);
    // Login mode is tied to the browser that started it (login CSRF); link mode is tied to the
    // user instead, checked when the link is completed.
    if (state.mode === "login" && (cookieNonce === undefined || !safeEqual(cookieNonce, state.nonce))) {
      throw AuthErrors.OAUTH_STATE_INVALID();
    }
    const returnTo = state.returnTo ?? this.options.defaultReturnTo;
    try {
      if (typeof query.error === "string") throw AuthErrors.OAUTH_PROVIDER_FAILED({ detail: "Sign-in was cancelled at GitHub" });
      if (typeof query.code !== "string" || query.code.length === 0 || query.code.length > 512) throw AuthErrors.OAUTH_STATE_INVALID();
      const profile = await this.options.client.fetchProfile(await this.options.client.exchangeCode(query.code));
      const data = state.mode === "link" ? await this.prepareLink(state, profile) : await this.prepareLogin(state, profile);
      if (!returnTo) return { data };
      const target = new URL(returnTo);
      for (const [key, value] of Object.entries(data)) target.searchParams.set(key, value);
      return { redirect: target.toString() };
    } catch (error) {
      if (!returnTo || !isAPIError(error)) throw error;
      const target = new URL(returnTo);
      target.searchParams.set("authError", error.code);
      return { redirect: target.toString() };
    }
  }

  /** `POST /auth/github/token`: a login code (and its verifier) → tokens for a sign-in from `device`. */
  async redeem(body: Record<string, unknown>, device: SignInDevice): Promise<SignInResult> {
    const record = await this.options.codes.consume(body.authCode, "login", body.codeVerifier);
    const { user, signInVersion } = await this.options.users.requireActiveSignIn(record.userId);
    return this.options.jwt.issue(user, device, signInVersion);
  }

  /** `POST /auth/github/link`: completes a link for the user who started it. */
  async completeLink(user: RequestUser, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const record = await this.options.codes.consume(body.linkCode, "link");
    if (record.userId !== user.id || !record.profile) throw AuthErrors.OAUTH_CODE_INVALID();
    await this.assertNotLinkedElsewhere(record.profile.id, user.id);
    await this.setGitHubFields(user._id, record.profile);
    return this.options.jwt.present(await this.options.users.requireActive(user.id));
  }

  /** `DELETE /auth/github/unlink`: refused when GitHub is the account's only way in. */
  async unlink(user: RequestUser): Promise<Record<string, unknown>> {
    if (typeof user.githubId === "string" && !(await this.options.credentials.has(user.id))) {
      throw AuthErrors.LAST_SIGN_IN_METHOD();
    }
    await this.options.users.model.updateOne(
      { _id: user._id },
      { $unset: { githubId: 1, githubUsername: 1, githubProfileUrl: 1, githubAvatarUrl: 1 } },
    );
    return this.options.jwt.present(await this.options.users.requireActive(user.id));
  }

  private async prepareLogin(state: OAuthState, profile: GitHubProfile): Promise<{ authCode: string }> {
    const user = await this.resolveLoginUser(profile);
    const authCode = await this.options.codes.issue({ kind: "login", userId: user.id, codeChallenge: state.codeChallenge });
    return { authCode };
  }

  private async prepareLink(state: OAuthState, profile: GitHubProfile): Promise<{ linkCode: string }> {
    const user = await this.options.users.requireActive(state.userId!);
    await this.assertNotLinkedElsewhere(profile.id, user.id);
    const linkCode = await this.options.codes.issue({ kind: "link", userId: user.id, profile });
    return { linkCode };
  }

  private async resolveLoginUser(profile: GitHubProfile): Promise<RequestUser> {
    const { users } = this.options;
    const linked = await users.findOne({ githubId: profile.id });
    if (linked) return users.assertActive(linked);

    const emails = profile.verifiedEmails;
    const sameEmail: UserRecord | null =
      emails.length > 0 ? await users.findOneIncludingDeleted({ email: { $in: [...emails] } }) : null;
    if (sameEmail) {
      // Only a GitHub-verified email may link, and only when the host opted in.
      if (!this.options.allowAccountLinking || sameEmail.deleted === true || typeof sameEmail.githubId === "string") {
        throw AuthErrors.ACCOUNT_EXISTS();
      }
      const user = users.assertActive(sameEmail);
      await this.setGitHubFields(sameEmail._id, profile);
      // The account's email is one GitHub verified: proof enough that it is the user's.
      await users.markEmailVerified(user.id, this.now());
      return user;
    }

    if (this.options.signupDisabled) throw AuthErrors.SIGNUP_DISABLED();
    try {
      const created = await users.model.create({ email: profile.primaryVerifiedEmail, ...githubFields(profile) });
      // Only a verified email is taken from GitHub, so the account starts verified (emailVerificationPlugin).
      if (profile.primaryVerifiedEmail !== undefined) await users.markEmailVerified(String(created._id), this.now());
      return users.assertActive(await users.findById(String(created._id)));
    } catch (error) {
      if (isDuplicateKeyError(error)) throw AuthErrors.ACCOUNT_EXISTS();
      throw error;
    }
  }

  private async assertNotLinkedElsewhere(githubId: string, userId: string): Promise<void> {
    const owner = await this.options.users.findOneIncludingDeleted({ githubId });
    if (owner && String(owner._id) !== userId) throw AuthErrors.GITHUB_ALREADY_LINKED();
  }

  private async setGitHubFields(id: unknown, profile: GitHubProfile): Promise<void> {
    try {
      await this.options.users.model.updateOne({ _id: id }, { $set: githubFields(profile) });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw AuthErrors.GITHUB_ALREADY_LINKED();
      throw error;
    }
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private returnTo(value: unknown): string | undefined {
    return value === undefined ? undefined : allowedReturnTo(value, this.options.allowedReturnOrigins);
  }

  private codeChallenge(value: unknown): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== "string" || !CODE_CHALLENGE.test(value)) {
      throw requestValidationError([{ path: "codeChallenge", message: "must be an S256 challenge (43 base64url characters)", keyword: "pattern" }], "query");
    }
    return value;
  }
}

function githubFields(profile: GitHubProfile): Record<string, string> {
  const fields: Record<string, string> = { githubId: profile.id, githubUsername: profile.login };
  if (profile.profileUrl) fields.githubProfileUrl = profile.profileUrl;
  if (profile.avatarUrl) fields.githubAvatarUrl = profile.avatarUrl;
  return fields;
}

