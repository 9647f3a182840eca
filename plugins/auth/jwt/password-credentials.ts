import { Schema, type Connection, type InferSchemaType, type Model } from "mongoose";
import { authCollection } from "./auth-collection.js";

const credentialSchema = new Schema(
  {
    // The user's `_id`, as a string.
    _id: { type: String, required: true },
    passwordHash: { type: String, required: true },
    updated: { type: Date, required: true },
  },
  { collection: "svc_auth_credentials", versionKey: false, strict: "throw" },
);

type CredentialRecord = InferSchemaType<typeof credentialSchema>;

/**
 * Password hashes live in their own collection, not on the user document: a generated
 * `/users` route, an admin screen, a `toJSON` mistake or `GET /auth/me` cannot leak what is
 * not there, and the host's user schema needs no secret field.
 *
 * @example
 * const credentials = new PasswordCredentials(connection);
 * await credentials.set(userId, await hasher.hash(password));
 */
export class PasswordCredentials {
  private readonly model: Model<CredentialRecord>;

  constructor(connection: Connection) {
    this.model = authCollection(connection, "SvcAuthCredential", credentialSchema);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async hashFor(userId: string): Promise<string | undefined> {
    const record = await this.model.findById(userId, { passwordHash: 1 }).lean();
    return record?.passwordHash;
  }

  async has(userId: string): Promise<boolean> {
    return (await this.model.exists({ _id: userId })) !== null;
  }

  async set(userId: string, passwordHash: string): Promise<void> {
    await this.model.updateOne({ _id: userId }, { $set: { passwordHash, updated: new Date() } }, { upsert: true });
  }

  /**
   * Replaces the hash only while it is still `expected` (a login's rehash of the password it just
   * checked): a password changed meanwhile is never overwritten with the old one.
   */
  async replace(userId: string, expected: string, passwordHash: string): Promise<void> {
    await this.model.updateOne({ _id: userId, passwordHash: expected }, { $set: { passwordHash, updated: new Date() } });
  }

  async remove(userId: string): Promise<void> {
    await this.model.deleteOne({ _id: userId });
  }
}
