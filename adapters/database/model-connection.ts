import { createRequire } from "node:module";
import path from "node:path";
import mongoose, { type Connection } from "mongoose";
import type { ModelOnConnection } from "../../contracts/database.js";
import { DatabaseErrors } from "./errors.js";

/**
 * Fails at once when a model can never reach the connection svc opened. Without this check such a
 * model buffers every operation until mongoose's timeout, and the app dies 30 s later with a phase
 * timeout that names neither the model nor the cause. The usual cause is a second copy of mongoose
 * (a linked or `file:` install of svc keeps its own `node_modules/mongoose`); the other is a model
 * declared on a connection from `mongoose.createConnection()`.
 *
 * @example
 * checkModelConnection(mongoose.connection, Post, 'modelRouter "/posts"');
 */
export function checkModelConnection(connection: Connection, model: ModelOnConnection, usedBy: string): void {
  if (model.base !== undefined && model.base !== mongoose) {
    const theirs = (model.base as { version?: unknown }).version;
    throw DatabaseErrors.SECOND_MONGOOSE(model.modelName, usedBy, typeof theirs === "string" ? theirs : "unknown", ownMongoose());
  }
  if (model.db !== connection) throw DatabaseErrors.MODEL_ON_OTHER_CONNECTION(model.modelName, usedBy);
}

function ownMongoose(): string {
  try {
    const manifest = createRequire(import.meta.url).resolve("mongoose/package.json");
    return `${mongoose.version} at ${path.dirname(manifest)}`;
  } catch {
    return mongoose.version;
  }
}
