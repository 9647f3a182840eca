import type { DatabaseConnector, OpenDatabase } from "../../contracts/database.js";
import { displayUri } from "./display-uri.js";
import { acquireDefaultConnection } from "./shared-connection.js";

export interface ExternalDatabaseOptions {
  /** A MongoDB connection string (`DB_URI`). Use a replica set for change streams and sync. */
  uri: string;
  /** Database name when the URI has none. */
  dbName?: string;
}

/**
 * Connects mongoose's default connection to an existing MongoDB deployment.
 *
 * @example
 * const connector = createExternalConnector({ uri: process.env.DB_URI! });
 */
export function createExternalConnector(options: ExternalDatabaseOptions): DatabaseConnector {
  return {
    kind: "external",
    async open(): Promise<OpenDatabase> {
      const { connection, release } = await acquireDefaultConnection({ uri: options.uri, dbName: options.dbName });
      return { kind: "external", displayUri: displayUri(options.uri), inMemory: false, connection, close: release };
    },
  };
}
