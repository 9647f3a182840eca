import type { Connection, ObtainSchemaGeneric, Schema } from "mongoose";

/**
 * The user fields the auth plugin reads and writes, as its schema plugins add them:
 * `baseUserPlugin` (`email`, `admin`), `isDisabledPlugin` (`disabled`), `isDeletedPlugin`
 * (`deleted`), `githubUserPlugin` (`github*`) and `federatedIdentityPlugin` (`federatedId`).
 * Extend it when you declare your user document type yourself.
 *
 * @example
 * interface UserFields extends AuthUserFields { name?: string }
 * const userSchema = new Schema<UserFields>({ name: { type: String, description: "Display name" } }, { strict: "throw", toJSON: { virtuals: true } });
 * userSchema.plugin(baseUserPlugin);
 */
export interface AuthUserFields {
  email?: string | null;
  admin?: boolean | null;
  disabled?: boolean | null;
  deleted?: boolean | null;
  githubId?: string | null;
  githubUsername?: string | null;
  githubProfileUrl?: string | null;
  githubAvatarUrl?: string | null;
  federatedId?: string | null;
}

/**
 * A mongoose model as the auth plugin takes it, with documents of type `TUser`. Only what auth
 * needs is named, so every model fits whatever its virtuals, methods and query helpers (mongoose's
 * full `Model` type is invariant in those: `Model<any>` refuses a model whose schema has
 * `toJSON: {virtuals: true}`, with "Property 'id' is missing"). `TUser` is read from
 * `castObject`, which mongoose types as returning the model's document type.
 *
 * @example
 * const users: UserModel = mongoose.model("User", userSchema);
 */
export interface UserModel<TUser = unknown> {
  readonly modelName: string;
  readonly schema: Schema;
  readonly db: Connection;
  init(): Promise<unknown>;
  castObject(obj: Record<string, unknown>, options?: { ignoreCastErrors?: boolean }): TUser;
}

type IsAny<T> = 0 extends 1 & T ? true : false;

/** Auth fields the document type declares with a type auth cannot use (`email: number`...). */
type MistypedAuthFields<TUser> = {
  [K in keyof AuthUserFields & keyof TUser]-?: IsAny<TUser[K]> extends true ? never : TUser[K] extends AuthUserFields[K] ? never : K;
}[keyof AuthUserFields & keyof TUser];

/**
 * Whether the document type was written by hand (`new Schema<UserFields>()`,
 * `mongoose.model<UserFields>()`) rather than inferred from the schema definition: mongoose
 * records it as the schema's `EnforcedDocType`, which is `any` when inferred.
 */
type DeclaresDocumentType<M extends UserModel> = IsAny<ObtainSchemaGeneric<M["schema"], "EnforcedDocType">> extends true ? false : true;

/**
 * What is wrong with `M` as the user model, or `never`. TypeScript cannot see the fields schema
 * plugins add, so a document type inferred from the schema is only checked for the auth fields
 * it does declare; `AUTH_USER_MODEL_FIELD_MISSING` catches a missing `baseUserPlugin` at start.
 * A hand-written document type must declare `email` (extend `AuthUserFields`).
 */
export type UserModelProblem<M extends UserModel> =
  M extends UserModel<infer TUser>
    ? IsAny<TUser> extends true
      ? never
      : [MistypedAuthFields<TUser>] extends [never]
        ? DeclaresDocumentType<M> extends true
          ? "email" extends keyof TUser
            ? never
            : "the declared user document type has no `email`: extend AuthUserFields"
          : never
        : `the user document type declares ${MistypedAuthFields<TUser> & string} with a type auth cannot use (see AuthUserFields)`
    : never;

/**
 * `M` when it can be the user model; otherwise `M` plus a property naming the problem, so the
 * compiler's error says what to fix.
 *
 * @example
 * function authPlugin<M extends UserModel>(options: { userModel: CheckedUserModel<M> }): void;
 */
export type CheckedUserModel<M extends UserModel> = [UserModelProblem<M>] extends [never] ? M : M & { readonly "svc: not a user model": UserModelProblem<M> };
