import mongoose, { type Model } from "mongoose";
import { isDuplicateKeyError } from "../../../contracts/database.js";
import type { RequestUser } from "../../../contracts/request-user.js";
import { AuthErrors } from "../errors.js";

import { EMAIL_VERIFIED_AT } from "./email-verification-plugin.js";
import { ENDED_SIGN_INS, endedSignInIds, endSignInPipeline, type EndedSignIn } from "./ended-sign-ins.js";
import { SIGN_IN_VERSION, signInVersionOf } from "./sign-in-version.js";
import type { UserModel } from "./user-model.js";

/** A user document read lean from the database. */
export type UserRecord = Record<string, unknown> & { _id: unknown };

/** The host's user model as auth's own code queries it: documents are plain records to it. */
type StoredUserModel = Model<UserRecord>;

/** Keys never returned to clients nor put on `req.user`, even if a legacy document still has them. */
const SECRET_KEYS = ["password", "passwordHash", "hash", "salt", "__v", SIGN_IN_VERSION, ENDED_SIGN_INS];

/** What an access token is checked against: the user's sign-in version and the sign-ins ended one by one. */
export interface SignInState {
  readonly signInVersion: number;
  readonly endedSignIns: ReadonlySet<string>;
}

/**
 * Reads users for authentication: one indexed lookup per request, lean, refusing users who are
 * disabled or deleted at this moment (not when their token was issued).
 *
 * @example
 * const user = await users.requireActive(verified.userId); // RequestUser, or throws 401
 */
export class UserDirectory {
  readonly model: StoredUserModel;
  /**
   * What auth reads of a user: everything but the version key, and the hidden sign-in
   * bookkeeping (asked for by name where baseUserPlugin declared it `select: false`; a model
   * without the paths returns them with the rest).
   */
  private readonly fields: string;

  constructor(model: UserModel) {
    // The host's document type stays the host's: auth reads and writes only its own fields.
    this.model = model as unknown as StoredUserModel;
    this.fields = ["-__v", ...[SIGN_IN_VERSION, ENDED_SIGN_INS].filter((path) => this.model.schema.path(path)).map((path) => `+${path}`)].join(" ");
  }

  /**
   * Fails the start (`AUTH_USER_MODEL_FIELD_MISSING`) when the model lacks a field a feature
   * needs, naming the schema plugin that adds it.
   */
  requireField(field: string, plugin: string): void {
    if (!this.model.schema.path(field)) throw AuthErrors.USER_MODEL_FIELD_MISSING(field, plugin);
  }

  /** The user as `req.user`, or 401 `AUTH_USER_NOT_FOUND` / `AUTH_USER_DISABLED`. */
  async requireActive(userId: string): Promise<RequestUser> {
    const record = await this.findById(userId);
    return this.assertActive(record);
  }

  /**
   * The user as `req.user` and their sign-in state (the version an access token must carry, the
   * sign-ins whose tokens are refused), or 401 as `requireActive`.
   */
  async requireActiveSignIn(userId: string): Promise<{ user: RequestUser } & SignInState> {
    const record = await this.findById(userId);
    return { user: this.assertActive(record), signInVersion: signInVersionOf(record?.[SIGN_IN_VERSION]), endedSignIns: endedSignInIds(record?.[ENDED_SIGN_INS]) };
  }

  /** The user's current sign-in version (0 for an unknown user: nothing to sign in to anyway). */
  async currentSignInVersion(userId: string): Promise<number> {
    return signInVersionOf((await this.findById(userId))?.[SIGN_IN_VERSION]);
  }

  /**
   * Ends every sign-in of the user at once: access tokens issued before are refused from the
   * next request on (their version is now behind). Written past the schema's strictness, so a
   * user model without baseUserPlugin's hidden field still gets it.
   */
  async endSignIns(userId: string): Promise<void> {
    try {
      await this.model.updateOne({ _id: userId }, { $inc: { [SIGN_IN_VERSION]: 1 } }, { strict: false });
    } catch (error) {
      // An id that is not one of this model's is nobody's: there is nothing to end.
      if (!(error instanceof mongoose.Error.CastError)) throw error;
    }
  }

  /**
   * Ends one sign-in's access tokens: from the next request on they are refused, until `until`
   * (when the last of them lapses anyway). Written past the schema's strictness, as `endSignIns`.
   */
  async endSignIn(userId: string, entry: EndedSignIn, now: Date): Promise<void> {
    try {
      await this.model.updateOne({ _id: userId }, endSignInPipeline(entry, now, SIGN_IN_VERSION), { strict: false, updatePipeline: true });
    } catch (error) {
      if (!(error instanceof mongoose.Error.CastError)) throw error;
    }
  }

  /**
   * Makes `email` the user's sign-in address, verified `at` (with emailVerificationPlugin): a
   * followed link proved it. Another account's address is 409 `AUTH_EMAIL_TAKEN` (the unique index).
   */
  async changeEmail(userId: string, email: string, at: Date): Promise<void> {
    const verified = this.model.schema.path(EMAIL_VERIFIED_AT) ? { [EMAIL_VERIFIED_AT]: at } : {};
    try {
      await this.model.updateOne({ _id: userId }, { $set: { email, ...verified } }, { runValidators: true });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw AuthErrors.EMAIL_TAKEN();
      throw error;
    }
  }

  /** Stamps `emailVerifiedAt` (emailVerificationPlugin) once; a model without the field is left alone. */
  async markEmailVerified(userId: string, at: Date): Promise<void> {
    if (!this.model.schema.path(EMAIL_VERIFIED_AT)) return;
    await this.model.updateOne({ _id: userId, [EMAIL_VERIFIED_AT]: { $exists: false } }, { $set: { [EMAIL_VERIFIED_AT]: at } });
  }

  /** Refuses missing, deleted (`deleted: true`) and disabled users with 401. */
  assertActive(record: UserRecord | null): RequestUser {
    if (!record || record.deleted === true) throw AuthErrors.USER_NOT_FOUND();
    if (record.disabled === true) throw AuthErrors.USER_DISABLED();
    return toRequestUser(record);
  }

  async findById(userId: string): Promise<UserRecord | null> {
    try {
      // isDeletedPlugin hides deleted users from findOne; the `deleted` check above covers
      // models without it.
      return (await this.model.findOne({ _id: userId }).select(this.fields).lean()) as UserRecord | null;
    } catch (error) {
      // A token whose subject is not a valid id for this model is simply not a user.
      if (error instanceof mongoose.Error.CastError) return null;
      throw error;
    }
  }

  async findOne(filter: Record<string, unknown>): Promise<UserRecord | null> {
    return (await this.model.findOne(filter).select(this.fields).lean()) as UserRecord | null;
  }

  /**
   * Like `findOne`, but also finds soft-deleted users: isDeletedPlugin hides them unless the
   * query names `deleted`, and a deleted account still owns its email and linked identities.
   */
  async findOneIncludingDeleted(filter: Record<string, unknown>): Promise<UserRecord | null> {
    const named = this.model.schema.path("deleted") ? { ...filter, deleted: { $in: [true, false, null] } } : filter;
    return this.findOne(named);
  }

  /** The user as API responses show it: the model's `toJSON` (virtuals included), minus secrets. */
  toResponse(user: RequestUser | UserRecord): Record<string, unknown> {
    let json: Record<string, unknown>;
    try {
      json = this.model.hydrate(stripId(user)).toJSON({ virtuals: true }) as Record<string, unknown>;
    } catch {
      json = { ...user };
    }
    for (const key of SECRET_KEYS) delete json[key];
    json.id = String(user._id);
    return json;
  }
}

/**
 * The lean user document as `req.user`: every field, `id` as the string `_id`, never a secret.
 *
 * @example
 * toRequestUser({ _id: new ObjectId(), email: "a@b.c", admin: false }).id; // "66f0…"
 */
export function toRequestUser(record: UserRecord): RequestUser {
  const user: Record<string, unknown> = { ...record };
  for (const key of SECRET_KEYS) delete user[key];
  user.id = String(record._id);
  return user as unknown as RequestUser;
}

function stripId(user: RequestUser | UserRecord): Record<string, unknown> {
  const { id: _unused, ...rest } = user as Record<string, unknown>;
  return rest;
}
