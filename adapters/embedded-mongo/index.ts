/**
 * `svc/embedded-mongo`: an in-process, MongoDB-wire-compatible database for development and tests.
 *
 * @example
 * import { startEmbeddedMongo } from "svc/embedded-mongo";
 * const db = await startEmbeddedMongo({port: 0});
 * await mongoose.connect(db.uri, {dbName: "app"});
 */
export { startEmbeddedMongo } from "./start-embedded-mongo.js";
export { DataDirectoryInUseError } from "./dbpath-lock.js";
export type { RunningEmbeddedMongo, StartEmbeddedMongoOptions } from "./start-embedded-mongo.js";
export { createEngine, Engine } from "./engine.js";
export type { EngineOptions } from "./engine-options.js";
export type { EngineLogger } from "./engine-logger.js";
export { EngineError, ErrorCodes } from "./engine-error.js";
export type { OplogEntry, WriteBatch, WriteOp } from "./storage/write-ops.js";
export { JournalError, JournalErrorCodes } from "./journal/journal-error.js";
export type { Journal, JournalStats } from "./journal/journal.js";
export type { JournalFsyncMode, JournalOptions } from "./journal/journal-options.js";
