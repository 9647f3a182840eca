import type { AccountSignIn, Accounts } from "../../../contracts/accounts.js";
import { isDuplicateKeyError } from "../../../contracts/database.js";
import type { PasswordHasher } from "../../../contracts/password-hasher.js";
import type { RequestUser } from "../../../contracts/request-user.js";
import type { SvcLogger } from "../../../kernel/logger.js";
import { AuthErrors } from "../errors.js";
import type { LoginRateLimiter } from "../http/login-rate-limiter.js";
import type { Credentials, PasswordChange, SignupBody } from "../http/request-bodies.js";
import { SIGN_IN_VERSION, signInVersionOf } from "../users/sign-in-version.js";
import { toRequestUser, type UserDirectory, type UserRecord } from "../users/user-directory.js";
import type { PasswordCredentials } from "./password-credentials.js";
import { checkPasswordPolicy, type PasswordPolicy } from "./password-policy.js";
import type { LinkTokens } from "./link-tokens.js";
import type { SignInDevice } from "../http/auth-route.js";
import type { RefreshTokenStore } from "./refresh-token-store.js";
import type { TokenService } from "./token-service.js";

/** Builds the host's access-token claims from the user (SPEC §2.5); reserved claims are ignored. */
export type GenerateJWTPayload = (user: RequestUser) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A sign-in as `GET /auth/sign_ins` lists it: `current` marks the caller's own. */
export interface SignInSummary extends AccountSignIn {
  readonly current: boolean;
}

/** What signup, login and GitHub sign-in return (ARCHITECTURE §4). */
export interface SignInResult {
  token: string;
  refreshToken: string;
  userId: string;
}

export interface JwtAuthServiceOptions {
  users: UserDirectory;
  credentials: PasswordCredentials;
  refreshTokens: RefreshTokenStore;
  tokens: TokenService;
  hasher: PasswordHasher;
  limiter: LoginRateLimiter;
  /** A hash of a random password, verified against when the email is unknown. */
  dummyHash: string;
  generateJWTPayload: GenerateJWTPayload;
  signupDisabled: boolean;
  passwordPolicy: PasswordPolicy;
  /** The password-reset links, when the app mails them: a password set another way ends them. */
  resets?: LinkTokens;
  /** Every kind of link the app mails (reset, verification, email change): a deleted account's stop working. */
  mailedLinks?: readonly LinkTokens[];
  /** `accountDeletion.onDeleted`: told of each account deleted through svc. */
  onAccountDeleted?: (user: RequestUser) => unknown;
  logger: SvcLogger;
  /** Told about each new account once it exists (never awaited by the sign-up; see `AuthPluginOptions.onSignup`). */
  onSignup?: (user: RequestUser) => void;
}

/**
 * The JWT provider's account logic, independent of HTTP (the routes check bodies first): sign-up,
 * login, refresh-token rotation, profile updates, and the `ACCOUNTS` port for server code.
 *
 * @example
 * const { token, refreshToken, userId } = await service.login({ email, password }, signInDevice(req));
 */
export class JwtAuthService implements Accounts {
  constructor(private readonly options: JwtAuthServiceOptions) {}

  /** A new account from a checked sign-up body (profile fields already limited to the host's). */
  async signup({ email, password, profile }: SignupBody, device: SignInDevice): Promise<SignInResult> {
    const { users, credentials, hasher, limiter } = this.options;
    if (this.options.signupDisabled) throw AuthErrors.SIGNUP_DISABLED();
    checkPasswordPolicy(password, this.options.passwordPolicy);
    await limiter.consumeSignup(device.ip);

    if (await users.findOneIncludingDeleted({ email })) throw AuthErrors.EMAIL_TAKEN();
    const passwordHash = await hasher.hash(password);
    let created: { _id: unknown };
    try {
      created = await users.model.create({ ...profile, email });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw AuthErrors.EMAIL_TAKEN();
      throw error;
    }
    const userId = String(created._id);
    try {
      await credentials.set(userId, passwordHash);
    } catch (error) {
      // Never leave an account nobody can sign in to.
      await users.model.deleteOne({ _id: created._id });
      throw error;
    }
    const { user, signInVersion } = await users.requireActiveSignIn(userId);
    const signedIn = await this.issue(user, device, signInVersion);
    this.options.onSignup?.(user);
    return signedIn;
  }

  async login({ email, password }: Credentials, device: SignInDevice): Promise<SignInResult> {
    const { users, credentials, hasher, limiter, dummyHash } = this.options;
    const { ip } = device;
    // Spent before the (slow) password check, so parallel guesses cannot outrun the counter.
    await limiter.consumeLoginAttempt(email, ip);

    const record = await users.findOne({ email });
    const userId = record ? String(record._id) : undefined;
    const storedHash = userId ? await credentials.hashFor(userId) : undefined;
    // Always run the KDF, against a dummy hash when there is no account or no password, so an
    // unknown email costs the same as a wrong password and gets the same answer.
    const matches = await hasher.verify(password, storedHash ?? dummyHash);
    if (!matches || !record || storedHash === undefined || record.deleted === true) throw AuthErrors.INVALID_CREDENTIALS();
    await limiter.recordSuccess(email, ip);
    const user = users.assertActive(record);
    const rehashed = hasher.needsRehash(storedHash) ? await hasher.hash(password) : undefined;
    if (rehashed !== undefined) await credentials.replace(user.id, storedHash, rehashed);
    const { signedIn, familyId } = await this.issueFamily(user, device, signInVersionOf(record[SIGN_IN_VERSION]));
    // A password change since the check ended every sign-in then stored: this one, stored after,
    // was made with the old password and ends too.
    const current = await credentials.hashFor(user.id);
    if (current !== storedHash && current !== rehashed) {
      await this.options.refreshTokens.revokeFamily(user.id, familyId);
      throw AuthErrors.INVALID_CREDENTIALS();
    }
    return signedIn;
  }

  /**
   * Rotates a refresh token: `{token, refreshToken}` for the same sign-in (token family); the
   * device it came from becomes the sign-in's latest.
   */
  async refresh(presented: string, device: SignInDevice): Promise<{ token: string; refreshToken: string }> {
    const { refreshTokens, tokens } = this.options;
    const consumed = await refreshTokens.consume(presented);
    let active: { user: RequestUser; signInVersion: number };
    try {
      active = await this.options.users.requireActiveSignIn(consumed.userId);
    } catch (error) {
      await refreshTokens.revokeFamily(consumed.userId, consumed.familyId);
      throw error;
    }
    const claims = await this.options.generateJWTPayload(active.user);
    const token = await tokens.signAccessToken(active.user.id, claims, { version: active.signInVersion, id: consumed.familyId });
    const { token: refreshToken } = await refreshTokens.rotate(consumed, device);
    return { token, refreshToken };
  }

  /**
   * Ends the sign-in a refresh token belongs to (`POST /auth/logout`): its refresh tokens are
   * revoked, whichever of them this is, and its access tokens refused from the next request on.
   * A token that does not verify (forged, expired, not a refresh token) belongs to no sign-in
   * that could still be used, so it ends nothing and is no error: signing out is safe to repeat.
   */
  async logout(presented: string): Promise<void> {
    let verified: { userId: string; familyId: string };
    try {
      verified = await this.options.tokens.verifyRefreshToken(presented);
    } catch {
      return;
    }
    await this.options.refreshTokens.revokeFamily(verified.userId, verified.familyId);
  }

  /**
   * The caller's sign-ins (`GET /auth/sign_ins`), newest activity first; the one `accessToken`
   * (the caller's) belongs to is marked `current`.
   */
  async ownSignIns(user: RequestUser, accessToken: string | undefined): Promise<SignInSummary[]> {
    const currentId = await this.options.tokens.signInIdOf(accessToken);
    return (await this.listSignIns(user.id)).map((signIn) => ({ ...signIn, current: signIn.id === currentId }));
  }

  /** `ACCOUNTS.listSignIns`: the user's sign-ins that can still be refreshed, newest activity first. */
  listSignIns(userId: string): Promise<AccountSignIn[]> {
    return this.options.refreshTokens.listLive(userId);
  }

  /**
   * `ACCOUNTS.endSignIn`, and `DELETE /auth/sign_ins/{id}` (which answers false as 404
   * `AUTH_SIGN_IN_NOT_FOUND`): ends one sign-in as signing out on that device would — refresh
   * tokens revoked, access tokens refused from the next request on. False for another user's
   * sign-in, an unknown or an ended one.
   */
  endSignIn(userId: string, signInId: string): Promise<boolean> {
    return this.options.refreshTokens.revokeFamily(userId, signInId);
  }

  /**
   * Ends every sign-in of the user, on every device (`POST /auth/logout_all`): their refresh
   * tokens are revoked and their access tokens refused from the next request on.
   */
  async logoutEverywhere(user: RequestUser): Promise<void> {
    await this.endSignIns(user.id);
  }

  /**
   * `ACCOUNTS.endSignIns`: what `logout_all` does, for server code. Refresh tokens first, then the
   * version: a refresh under way either read the version before the bump (its access token is
   * refused) or after the revocation (its rotation fails), so none hands out a token that
   * outlives this.
   */
  async endSignIns(userId: string): Promise<void> {
    await this.options.refreshTokens.revokeUser(userId);
    await this.options.users.endSignIns(userId);
  }

  /**
   * `ACCOUNTS.accountDeleted`: what follows the deletion of an account, by its owner
   * (`POST /auth/delete_account`), the admin or server code — the password hash goes, every
   * sign-in ends, mailed links stop working, and the app's `onDeleted` runs (a failure is logged
   * with the user id, never thrown: the account is deleted either way).
   */
  async accountDeleted(user: RequestUser): Promise<void> {
    await this.options.credentials.remove(user.id);
    await this.endSignIns(user.id);
    await Promise.all((this.options.mailedLinks ?? []).map((links) => links.revokeUser(user.id)));
    if (!this.options.onAccountDeleted) return;
    try {
      await this.options.onAccountDeleted(user);
    } catch (error) {
      this.options.logger.error(`authPlugin accountDeletion.onDeleted failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, {
        userId: user.id,
        stack: error instanceof Error ? error.stack : undefined,
      });
    }
  }

  /** After a new password: reset links mailed for the old one stop working, and every sign-in ends. */
  private async passwordChanged(userId: string): Promise<void> {
    await this.options.resets?.revokeUser(userId);
    await this.endSignIns(userId);
  }

  /**
   * Changes the signed-in user's password after checking the current one
   * (`POST /auth/change_password`): wrong guesses spend the account's login budget, the new
   * password meets the policy, every sign-in of the user ends (other devices, and this one's old
   * tokens), and a new sign-in is returned so the device that changed it stays signed in.
   */
  async changePassword(user: RequestUser, { currentPassword, newPassword }: PasswordChange, device: SignInDevice): Promise<SignInResult> {
    const { credentials, hasher } = this.options;
    checkPasswordPolicy(newPassword, this.options.passwordPolicy);
    await this.checkCurrentPassword(user, currentPassword, device.ip);
    await credentials.set(user.id, await hasher.hash(newPassword));
    await this.passwordChanged(user.id);
    return this.issue(user, device);
  }

  /**
   * The signed-in user proves it is them before a sensitive change (`change_password`,
   * `change_email`): a wrong password, or none (a GitHub-only account), is 403
   * `AUTH_CURRENT_PASSWORD_INVALID`, and each guess spends the account's login budget (keyed as
   * login's, by email, so guesses through any of these routes add up; 429 after it).
   */
  async checkCurrentPassword(user: RequestUser, currentPassword: string, ip: string): Promise<void> {
    const { credentials, hasher, limiter, dummyHash } = this.options;
    const account = typeof user.email === "string" ? user.email : user.id;
    await limiter.consumeLoginAttempt(account, ip);
    const storedHash = await credentials.hashFor(user.id);
    const matches = await hasher.verify(currentPassword, storedHash ?? dummyHash);
    if (!matches || storedHash === undefined) throw AuthErrors.CURRENT_PASSWORD_INVALID();
    await limiter.recordSuccess(account, ip);
  }

  /** Applies checked profile changes (host-allowed fields only) to the user. */
  async updateProfile(user: RequestUser, changes: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { users } = this.options;
    const document = await users.model.findOne({ _id: user._id });
    if (!document) throw AuthErrors.USER_NOT_FOUND();
    for (const [field, value] of Object.entries(changes)) document.set(field, value);
    await document.save();
    return users.toResponse(users.assertActive(await users.findById(user.id)));
  }

  /** Server-side creation of a password user (seeding, admin tools): fields are not filtered. */
  async createPasswordUser(fields: Record<string, unknown> & { email: string }, password: string): Promise<RequestUser> {
    const { users, credentials, hasher } = this.options;
    checkPasswordPolicy(password, this.options.passwordPolicy);
    const passwordHash = await hasher.hash(password);
    let created: { _id: unknown };
    try {
      created = await users.model.create({ ...fields, email: fields.email.trim().toLowerCase() });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw AuthErrors.EMAIL_TAKEN();
      throw error;
    }
    await credentials.set(String(created._id), passwordHash);
    // Seeding may create a disabled user on purpose: it is returned as created, not refused.
    const record = await users.findById(String(created._id));
    if (!record) throw AuthErrors.USER_NOT_FOUND();
    return toRequestUser(record);
  }

  /**
   * Sets or replaces a user's password and ends every sign-in of that user: their refresh tokens
   * are revoked and their access tokens refused from the next request on (`AUTH_TOKEN_REVOKED`).
   * An unknown, deleted or malformed user id is `AUTH_USER_NOT_FOUND`: a password for nobody
   * would be silently kept.
   */
  async setPassword(userId: string, password: string): Promise<void> {
    const { users, credentials, hasher } = this.options;
    checkPasswordPolicy(password, this.options.passwordPolicy);
    if (!(await users.findById(userId))) throw AuthErrors.USER_NOT_FOUND({ detail: `No user with id ${JSON.stringify(userId)}` });
    await credentials.set(userId, await hasher.hash(password));
    await this.passwordChanged(userId);
  }

  /**
   * Issues an access token and a refresh token: a new sign-in from `device`, under the user's
   * current sign-in version (read unless the caller just read the user with it,
   * `requireActiveSignIn`).
   */
  async issue(user: RequestUser, device: SignInDevice, signInVersion?: number): Promise<SignInResult> {
    return (await this.issueFamily(user, device, signInVersion ?? (await this.options.users.currentSignInVersion(user.id)))).signedIn;
  }

  private async issueFamily(user: RequestUser, device: SignInDevice, signInVersion: number): Promise<{ signedIn: SignInResult; familyId: string }> {
    const claims = await this.options.generateJWTPayload(user);
    const refresh = await this.options.refreshTokens.issue(user.id, device);
    const token = await this.options.tokens.signAccessToken(user.id, claims, { version: signInVersion, id: refresh.familyId });
    return { signedIn: { token, refreshToken: refresh.token, userId: user.id }, familyId: refresh.familyId };
  }

  /** The response form of a user. */
  present(user: RequestUser | UserRecord): Record<string, unknown> {
    return this.options.users.toResponse(user);
  }
}

/** SPEC §2.5's default claims: `admin` (the subject is always the user id). */
export const defaultJWTPayload: GenerateJWTPayload = (user) => ({ admin: user.admin === true });

