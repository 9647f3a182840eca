import type { RequestUser } from "../../../contracts/request-user.js";
import { AuthErrors } from "../errors.js";
import type { UserDirectory } from "../users/user-directory.js";
import type { PasswordCredentials } from "./password-credentials.js";
import type { RefreshTokenStore } from "./refresh-token-store.js";
import type { TokenService } from "./token-service.js";

/**
 * `authPlugin`'s `accountDeletion` option (JWT provider): `POST /auth/delete_account` lets a
 * signed-in user delete their own account (app stores require it of apps with sign-up). `true`
 * turns it on with the defaults.
 *
 * @example
 * accountDeletion: {
 *   onDeleted: async (user) => { await Todo.deleteMany({ ownerId: user.id }); },
 * }
 */
export interface AccountDeletionOptions {
  /**
   * Runs once an account is deleted — by its owner (before the answer), in the admin, or by
   * server code through `ACCOUNTS.accountDeleted` — to remove or anonymise the user's data. A
   * throw or rejection is logged with the user id and never answered (the account stays deleted),
   * so the cleanup can be run again from the log.
   */
  onDeleted?(user: RequestUser): unknown;
  /**
   * How recent the sign-in of an account without a password (GitHub-only) must be, since it has
   * no password to confirm with: a duration like `10m` (the default).
   */
  recentSignIn?: string;
}

export interface AccountDeletionDependencies {
  readonly users: UserDirectory;
  readonly credentials: PasswordCredentials;
  readonly refreshTokens: RefreshTokenStore;
  readonly tokens: TokenService;
  /** `change_password`'s current-password check, and what follows any account's deletion. */
  readonly accounts: {
    checkCurrentPassword(user: RequestUser, currentPassword: string, ip: string): Promise<void>;
    accountDeleted(user: RequestUser): Promise<void>;
  };
  readonly recentSignInSeconds: number;
  readonly now: () => Date;
}

/**
 * A user deleting their own account. The proof is the current password (`change_password`'s
 * check and login budget); an account without one proves itself with a recent sign-in instead.
 * A user model with `deleted` (isDeletedPlugin) soft-deletes, keeping the record — and its email,
 * as every deleted account does — for the admin; one without removes the record. Then
 * `ACCOUNTS.accountDeleted`: the password hash goes, every sign-in ends, mailed links stop
 * working, and `onDeleted` runs.
 *
 * @example
 * await deletion.delete(requireUser(req), { currentPassword }, bearerToken(req), clientIp(req)); // 204
 */
export class AccountDeletion {
  constructor(private readonly deps: AccountDeletionDependencies) {}

  /**
   * `POST /auth/delete_account`: 403 `AUTH_CURRENT_PASSWORD_INVALID` for a wrong or missing
   * password (429 past the login budget), 403 `AUTH_RECENT_SIGN_IN_REQUIRED` for a passwordless
   * account whose sign-in is older than `recentSignIn`.
   */
  async delete(user: RequestUser, { currentPassword }: { currentPassword?: string }, accessToken: string | undefined, ip: string): Promise<void> {
    const { users, credentials, accounts } = this.deps;
    if (await credentials.has(user.id)) await accounts.checkCurrentPassword(user, currentPassword ?? "", ip);
    else await this.requireRecentSignIn(user, accessToken);

    if (users.model.schema.path("deleted")) await users.model.updateOne({ _id: user._id }, { $set: { deleted: true } });
    else await users.model.deleteOne({ _id: user._id });
    await accounts.accountDeleted(user);
  }

  private async requireRecentSignIn(user: RequestUser, accessToken: string | undefined): Promise<void> {
    const signInId = await this.deps.tokens.signInIdOf(accessToken);
    const signedInAt = signInId === undefined ? undefined : await this.deps.refreshTokens.signedInAt(user.id, signInId);
    const oldest = this.deps.now().getTime() - this.deps.recentSignInSeconds * 1000;
    if (signedInAt === undefined || signedInAt.getTime() < oldest) throw AuthErrors.RECENT_SIGN_IN_REQUIRED();
  }

}
