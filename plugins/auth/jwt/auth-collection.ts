import type { Connection, Model, Schema } from "mongoose";

/**
 * The model for one of the auth plugin's own collections on `connection`, compiled once per
 * connection (apps in a process share mongoose's default connection, so a second app reuses it).
 *
 * @example
 * const RefreshTokens = authCollection(connection, "SvcAuthRefreshToken", refreshTokenSchema);
 */
export function authCollection<T>(connection: Connection, name: string, schema: Schema<T>): Model<T> {
  return (connection.models[name] as Model<T> | undefined) ?? connection.model<T>(name, schema);
}
