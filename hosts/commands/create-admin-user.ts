import { randomBytes } from "node:crypto";
import mongoose, { type Model } from "mongoose";
import type { UserModel } from "../../plugins/auth/index.js";
import { appAccounts } from "../app-accounts.js";
import { toAPIError } from "../error-response.js";
import type { SvcApp } from "../svc-app.js";
import { CommandErrors } from "./errors.js";

export interface CreateAdminUserOptions {
  /** The app's user model: the one given to `authPlugin({ userModel })`. */
  userModel: UserModel;
  email: string;
  /** The new password; omitted, a random one is generated and returned once as `generatedPassword`. */
  password?: string;
  /** More fields for a new user (e.g. required profile fields); an existing user keeps its own. */
  fields?: Readonly<Record<string, unknown>>;
}

export interface CreateAdminUserResult {
  readonly id: string;
  readonly email: string;
  /** False when the user existed: it was made an admin and its password was reset. */
  readonly created: boolean;
  /** True when the user is disabled (still unable to sign in; re-enabling is a separate decision). */
  readonly disabled: boolean;
  /** Set only when no password was given: show it once, store it nowhere. */
  readonly generatedPassword?: string;
}

/**
 * Creates an admin user, or makes an existing user (same email) an admin and resets its password
 * — Django's `createsuperuser` and `changepassword` in one. Passwords go through the app's
 * `ACCOUNTS` port, so the auth plugin's hasher and password policy apply (`AUTH_WEAK_PASSWORD`),
 * and a reset ends the user's existing sign-ins. The app is built (started) if needed and left
 * running: the caller stops it. Needs `authPlugin` with the JWT provider
 * (`APP_ACCOUNTS_UNAVAILABLE`); a soft-deleted user is refused (`COMMAND_USER_DELETED`); what the
 * user model refuses (a malformed email, a missing required field, a field it does not have) is
 * the `VALIDATION_*` error REST answers with.
 *
 * @example
 * const result = await createAdminUser(app, { userModel: User, email: "ada@example.com" });
 * if (result.generatedPassword) console.log(`Password (shown once): ${result.generatedPassword}`);
 * await app.stop();
 */
export async function createAdminUser(app: SvcApp, options: CreateAdminUserOptions): Promise<CreateAdminUserResult> {
  const accounts = await appAccounts(app);
  const email = options.email.trim().toLowerCase();
  const generatedPassword = options.password === undefined ? randomBytes(18).toString("base64url") : undefined;
  const password = options.password ?? generatedPassword!;
  // `UserModel` names only what every host model shares; queried here, its documents are records.
  const userModel = options.userModel as unknown as Model<Record<string, unknown>>;

  // isDeletedPlugin hides deleted users unless the query names `deleted`; a deleted user still
  // owns its email, and creating another account with it would fail on the unique index.
  const filter = userModel.schema.path("deleted") ? { email, deleted: { $in: [true, false, null] } } : { email };
  const existing = (await userModel.findOne(filter).lean()) as { _id: unknown; deleted?: unknown; disabled?: unknown } | null;
  if (existing?.deleted === true) throw CommandErrors.USER_DELETED(email);

  if (existing) {
    const id = String(existing._id);
    // Password first: a password the policy refuses must not leave a half-promoted user behind.
    await accounts.setPassword(id, password);
    await userModel.updateOne({ _id: existing._id }, { $set: { admin: true } });
    return { id, email, created: false, disabled: existing.disabled === true, generatedPassword };
  }
  let user: Awaited<ReturnType<typeof accounts.createPasswordUser>>;
  try {
    user = await accounts.createPasswordUser({ ...options.fields, email, admin: true }, password);
  } catch (error) {
    throw modelRefusal(error);
  }
  return { id: user.id, email, created: true, disabled: user.disabled === true, generatedPassword };
}

/**
 * The user model's own refusals as the coded errors a REST create gets (`VALIDATION_FAILED`,
 * `VALIDATION_CAST_FAILED`, `VALIDATION_UNKNOWN_FIELD`) rather than mongoose's uncoded message;
 * anything else passes through.
 */
function modelRefusal(error: unknown): unknown {
  const { ValidationError, CastError, StrictModeError } = mongoose.Error;
  return error instanceof ValidationError || error instanceof CastError || error instanceof StrictModeError ? toAPIError(error) : error;
}
