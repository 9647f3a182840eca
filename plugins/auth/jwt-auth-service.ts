import type { RequestUser } from "../../contracts/request-user.js";
import { isDuplicateKeyError } from "../../contracts/database.js";
import { AuthErrors } from "./errors.js";
import type { LoginRateLimiter } from "./login-rate-limiter.js";
import type { PasswordCredentials } from "./password-credentials.js";
import type { PasswordHasher } from "./password-hasher.js";
import type { RefreshTokenStore } from "./refresh-token-store.js";
import { bodyObject, pickProfileFields, readEmail, readPassword, type PasswordPolicy } from "./request-body.js";
import type { TokenService } from "./token-service.js";
import type { UserDirectory, UserRecord } from "./user-directory.js";

/** Builds the host's access-token claims from the user (SPEC §2.5); reserved claims are ignored. */
export type GenerateJWTPayload = (user: RequestUser) => Record<string, unknown> | Promise<Record<string, unknown>>;

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
  profileFields: readonly string[];
  passwordPolicy: PasswordPolicy;
}

/**
 * The JWT provider's account logic, independent of HTTP: sign-up, login, refresh-token rotation
 * and profile updates.
 *
 * @example
 * const { token, refreshToken, userId } = await service.login({ email, password }, req.ip);
 */
export class JwtAuthService {
  constructor(private readonly options: JwtAuthServiceOptions) {}

  async signup(rawBody: unknown, ip: string): Promise<SignInResult> {
    const { users, credentials, hasher, limiter } = this.options;
    if (this.options.signupDisabled) throw AuthErrors.SIGNUP_DISABLED();
    const body = bodyObject(rawBody);
    const email = readEmail(body);
    const password = readPassword(body, this.options.passwordPolicy);
    const profile = pickProfileFields(body, this.options.profileFields, ["email", "password"]);
    await limiter.consumeSignup(ip);

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
    return this.issue(users.assertActive(await users.findById(userId)));
  }

  async login(rawBody: unknown, ip: string): Promise<SignInResult> {
    const { users, credentials, hasher, limiter, dummyHash } = this.options;
    const body = bodyObject(rawBody);
    const email = readEmail(body);
    const password = readPassword(body);
    await limiter.assertLoginAllowed(email, ip);

    const record = await users.findOne({ email });
    const userId = record ? String(record._id) : undefined;
    const storedHash = userId ? await credentials.hashFor(userId) : undefined;
    // Always run the KDF, against a dummy hash when there is no account or no password, so an
    // unknown email costs the same as a wrong password and gets the same answer.
    const matches = await hasher.verify(password, storedHash ?? dummyHash);
    if (!matches || !record || storedHash === undefined || record.deleted === true) {
      await limiter.recordFailure(email, ip);
      throw AuthErrors.INVALID_CREDENTIALS();
    }
    const user = users.assertActive(record);
    await limiter.recordSuccess(email);
    if (hasher.needsRehash(storedHash)) await credentials.set(user.id, await hasher.hash(password));
    return this.issue(user);
  }

  /** Rotates a refresh token: `{token, refreshToken}` for the same sign-in (token family). */
  async refresh(rawBody: unknown): Promise<{ token: string; refreshToken: string }> {
    const body = bodyObject(rawBody);
    if (typeof body.refreshToken !== "string") throw AuthErrors.INVALID_BODY("refreshToken must be a string", { field: "refreshToken" });
    const { userId, familyId } = await this.options.refreshTokens.consume(body.refreshToken);
    let user: RequestUser;
    try {
      user = await this.options.users.requireActive(userId);
    } catch (error) {
      await this.options.refreshTokens.revokeFamily(familyId);
      throw error;
    }
    const { token, refreshToken } = await this.issue(user, familyId);
    return { token, refreshToken };
  }

  /** Applies the host-allowed profile fields of `rawBody` to the user; anything else → 400. */
  async updateProfile(user: RequestUser, rawBody: unknown): Promise<Record<string, unknown>> {
    const { users } = this.options;
    const changes = pickProfileFields(bodyObject(rawBody), this.options.profileFields);
    const document = await users.model.findOne({ _id: user._id });
    if (!document) throw AuthErrors.USER_NOT_FOUND();
    for (const [field, value] of Object.entries(changes)) document.set(field, value);
    await document.save();
    return users.toResponse(users.assertActive(await users.findById(user.id)));
  }

  /** Server-side creation of a password user (seeding, admin tools): fields are not filtered. */
  async createPasswordUser(fields: Record<string, unknown> & { email: string }, password: string): Promise<RequestUser> {
    const { users, credentials, hasher } = this.options;
    readPassword({ password }, this.options.passwordPolicy);
    const passwordHash = await hasher.hash(password);
    let created: { _id: unknown };
    try {
      created = await users.model.create({ ...fields, email: fields.email.trim().toLowerCase() });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw AuthErrors.EMAIL_TAKEN();
      throw error;
    }
    await credentials.set(String(created._id), passwordHash);
    return users.assertActive(await users.findById(String(created._id)));
  }

  /** Sets or replaces a user's password (and ends every sign-in of that user). */
  async setPassword(userId: string, password: string): Promise<void> {
    readPassword({ password }, this.options.passwordPolicy);
    await this.options.credentials.set(userId, await this.options.hasher.hash(password));
    await this.options.refreshTokens.revokeUser(userId);
  }

  /** Issues an access token and a refresh token (new family unless given). */
  async issue(user: RequestUser, familyId?: string): Promise<SignInResult> {
    const claims = await this.options.generateJWTPayload(user);
    const token = await this.options.tokens.signAccessToken(user.id, claims);
    const refresh = await this.options.refreshTokens.issue(user.id, familyId);
    return { token, refreshToken: refresh.token, userId: user.id };
  }

  /** The response form of a user. */
  present(user: RequestUser | UserRecord): Record<string, unknown> {
    return this.options.users.toResponse(user);
  }
}

/** SPEC §2.5's default claims: `admin` (the subject is always the user id). */
export const defaultJWTPayload: GenerateJWTPayload = (user) => ({ admin: user.admin === true });

