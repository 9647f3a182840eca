import type { Connection } from "mongoose";
import { token } from "../kernel/container.js";

/** An open database: the mongoose connection models use, and how to let it go. */
export interface OpenDatabase {
  /** `external` (a MongoDB deployment from `DB_URI`) or `embedded` (the in-process engine). */
  readonly kind: "external" | "embedded";
  /** The connection string with any password masked, for logs. */
  readonly displayUri: string;
  /** The embedded engine without a data directory: what is written is gone when the process ends (default false). */
  readonly inMemory?: boolean;
  readonly connection: Connection;
  /** Releases this app's hold on the connection (and the embedded engine, if it started one). */
  close(): Promise<void>;
}

/**
 * The database port: something that can open the database. Adapters live in
 * `adapters/database/` (external, embedded); tests swap them with `override`.
 *
 * @example
 * container.override(DATABASE_CONNECTOR, { useValue: createExternalConnector({ uri }) });
 */
export interface DatabaseConnector {
  readonly kind: OpenDatabase["kind"];
  open(): Promise<OpenDatabase>;
}

export const DATABASE_CONNECTOR = token<DatabaseConnector>("database.Connector");

/**
 * The open database of a started app (bound by the database plugin; resolving it before the
 * plugin started throws).
 */
export interface Database {
  readonly connection: Connection;
  readonly kind: OpenDatabase["kind"];
  readonly displayUri: string;
  /** The embedded engine without a data directory: what is written is gone when the process ends. */
  readonly inMemory: boolean;
  /**
   * Throws `DATABASE_SECOND_MONGOOSE` or `DATABASE_MODEL_ON_OTHER_CONNECTION` when `model` can
   * never reach this database. Plugins that take a user's model call it in `start()`, before the
   * first query, so a misconfigured install fails at once with its cause.
   *
   * @example
   * ctx.resolve(DATABASE).checkModel(options.userModel, "authPlugin userModel");
   */
  checkModel(model: ModelOnConnection, usedBy: string): void;
}

export const DATABASE = token<Database>("database.Database");

/** What a model must show for `Database.checkModel`: its name, connection and mongoose instance. */
export interface ModelOnConnection {
  readonly modelName: string;
  readonly db: Connection;
  /** The mongoose instance that created the model (`Model.base`). */
  readonly base?: unknown;
}

/** MongoDB's duplicate-key error as the driver reports it (code 11000). */
export interface DuplicateKeyError {
  readonly code: 11000;
  readonly keyValue?: Record<string, unknown>;
  readonly keyPattern?: Record<string, unknown>;
}

/**
 * True for MongoDB's duplicate-key error (code 11000), however the driver wrapped it.
 *
 * @example
 * try { await User.create({ email }); } catch (error) { if (isDuplicateKeyError(error)) throw AuthErrors.EMAIL_TAKEN(); }
 */
export function isDuplicateKeyError(error: unknown): error is DuplicateKeyError {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === 11000;
}
