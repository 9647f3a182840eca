import type { Connection } from "mongoose";
import { token } from "../kernel/container.js";

/** An open database: the mongoose connection models use, and how to let it go. */
export interface OpenDatabase {
  /** `external` (a MongoDB deployment from `DB_URI`) or `embedded` (the in-process engine). */
  readonly kind: "external" | "embedded";
  /** The connection string with any password masked, for logs. */
  readonly displayUri: string;
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
}

export const DATABASE = token<Database>("database.Database");
