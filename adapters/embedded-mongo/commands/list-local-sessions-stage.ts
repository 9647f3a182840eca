import { createHash } from "node:crypto";
import { Binary } from "bson";
import type { Document } from "bson";
import { bsonTypeName } from "../query/index.js";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandContext } from "./command-context.js";
import { isPlainDocument } from "./command-arguments.js";

/**
 * The engine has no authentication: every session belongs to the unauthenticated user, whose
 * `uid` mongod computes as SHA-256 of the empty user name.
 */
const ANONYMOUS_UID = new Binary(createHash("sha256").update("").digest(), 0);

/**
 * The `$listLocalSessions` stage (`{aggregate: 1, pipeline: [{$listLocalSessions: {}}, ...]}`):
 * one document per session the engine holds in memory, `{_id: {id, uid}, lastUse}`, as mongod
 * lists its local session cache. Options `{}`, `{allUsers: true}` or `{users: [{user, db}]}`
 * (every session is the unauthenticated user's, so only an empty `users` list filters them all
 * out); anything else → FailedToParse (9) / TypeMismatch (14) as mongod.
 *
 * @example
 * await engine.runCommand("admin", {aggregate: 1, pipeline: [{$listLocalSessions: {allUsers: true}}], cursor: {}});
 */
export function listLocalSessionsDocuments(ctx: CommandContext, spec: unknown): Document[] {
  if (optionNumber(ctx.command["aggregate"]) !== 1) {
    throw new EngineError(ErrorCodes.InvalidNamespace, "$listLocalSessions must be run against the database with {aggregate: 1}, not a collection");
  }
  if (!isPlainDocument(spec)) {
    throw new EngineError(ErrorCodes.TypeMismatch, `$listLocalSessions options must be an object, but found: ${bsonTypeName(spec)}`);
  }
  let includeAll = true;
  for (const [name, value] of Object.entries(spec)) {
    if (name === "allUsers") {
      if (typeof value !== "boolean") throw new EngineError(ErrorCodes.TypeMismatch, "BSON field '$listLocalSessions.allUsers' is the wrong type, expected type 'bool'");
    } else if (name === "users") {
      if (!Array.isArray(value)) throw new EngineError(ErrorCodes.TypeMismatch, "BSON field '$listLocalSessions.users' is the wrong type, expected type 'array'");
      includeAll = value.length > 0;
    } else {
      throw new EngineError(40415, `BSON field '$listLocalSessions.${name}' is an unknown field.`);
    }
  }
  if (spec["allUsers"] === true && spec["users"] !== undefined) {
    throw new EngineError(ErrorCodes.FailedToParse, "$listLocalSessions: may not specify both 'allUsers' and 'users'");
  }
  if (!includeAll) return [];
  return ctx.services.sessions.list().map((session) => ({
    _id: { id: session.lsid["id"], uid: ANONYMOUS_UID },
    lastUse: new Date(session.lastUse),
  }));
}
