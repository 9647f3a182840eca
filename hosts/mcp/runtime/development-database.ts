import mongoose, { type mongo } from "mongoose";
import { displayUri } from "../../../adapters/database/display-uri.js";
import { SvcError } from "../../../kernel/errors.js";
import { findDevServer } from "./dev-server-file.js";
import { RuntimeToolErrors } from "./runtime-errors.js";
import type { RuntimeToolOptions } from "./tool-result.js";

/** The database a runtime tool reads, and how to name it in answers (password masked). */
export interface DatabaseTarget {
  readonly uri: string;
  readonly name: string;
  readonly source: "DB_URI" | "dev-server";
}

/**
 * Finds the development database: `DB_URI` (or `DB_CONNECTION`) of svc-mcp-local's environment
 * wins; otherwise the embedded engine the running development server announced.
 *
 * @example
 * const target = await findDevelopmentDatabase({ cwd: process.cwd(), env: process.env });
 */
export async function findDevelopmentDatabase(options: RuntimeToolOptions): Promise<DatabaseTarget> {
  const uri = options.env.DB_URI?.trim() || options.env.DB_CONNECTION?.trim();
  // Like the database plugin: the URI's own database, else `svc`.
  if (uri) return { uri, name: /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(uri)?.[1] ?? "svc", source: "DB_URI" };
  const server = await findDevServer(options.cwd);
  if (server?.database) return { uri: server.database.uri, name: server.database.name, source: "dev-server" };
  throw RuntimeToolErrors.NO_DATABASE(options.cwd);
}

/**
 * Opens a short-lived client on the target, runs `read` on its database and closes the client.
 * The driver is mongoose's own copy (the peer dependency the app uses too).
 *
 * @example
 * const names = await readDatabase(target, (db) => db.listCollections().toArray());
 */
export async function readDatabase<T>(target: DatabaseTarget, read: (db: mongo.Db) => Promise<T>): Promise<T> {
  const where = `${displayUri(target.uri)} (database ${target.name}, from ${target.source})`;
  const client = new mongoose.mongo.MongoClient(target.uri, { serverSelectionTimeoutMS: 5_000, appName: "svc-mcp-local" });
  try {
    await client.connect();
    return await read(client.db(target.name));
  } catch (error) {
    if (error instanceof SvcError) throw error;
    throw RuntimeToolErrors.DATABASE_UNREACHABLE(where, error instanceof Error ? error.message : String(error));
  } finally {
    await client.close();
  }
}
