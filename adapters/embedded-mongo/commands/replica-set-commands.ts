import { Long } from "bson";
import type { Document } from "bson";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { EngineServices } from "../engine-services.js";
import type { CommandHandler } from "./command-context.js";
import { isPlainDocument } from "./command-arguments.js";

/** The config `replSetInitiate` accepted, per engine (the engine is a primary from the start). */
const initiated = new WeakMap<EngineServices, Document>();

/**
 * `replSetInitiate`: the engine is a one-member replica set from its start, so this only checks
 * the config the way mongod would (the set name must be the one the engine runs as, exactly one
 * member) and logs mongod's "transition to primary complete" line, which tools that start a
 * `mongod --replSet` (mongodb-memory-server) wait for. A second call: AlreadyInitialized (23).
 *
 * @example
 * await admin.command({replSetInitiate: {_id: "svc-rs", members: [{_id: 0, host: "127.0.0.1:27017"}]}});
 */
export const replSetInitiateCommand: CommandHandler = (ctx) => {
  const { services } = ctx;
  if (ctx.db !== "admin") throw new EngineError(ErrorCodes.Unauthorized, "replSetInitiate may only be run against the admin database.");
  if (initiated.has(services)) throw new EngineError(ErrorCodes.AlreadyInitialized, "already initialized");
  const given = ctx.command["replSetInitiate"];
  const config = isPlainDocument(given) ? given : defaultConfig(services);
  const name = services.options.replicaSetName;
  if (config["_id"] !== name) {
    throw new EngineError(
      ErrorCodes.InvalidReplicaSetConfig,
      `Attempting to initiate a replica set with name ${String(config["_id"])}, but command line reports ${name}; rejecting`,
    );
  }
  const members = config["members"];
  if (!Array.isArray(members) || members.length !== 1) {
    throw new EngineError(
      ErrorCodes.InvalidReplicaSetConfig,
      "the embedded engine is a one-member replica set: the config must list exactly one member (start one server per set)",
    );
  }
  initiated.set(services, config);
  services.logger.info("Transition to primary complete; database writes are now permitted");
  return { ok: 1 };
};

/** `replSetGetConfig`: the accepted config, or the one-member config the engine runs with. */
export const replSetGetConfigCommand: CommandHandler = (ctx) => {
  const config = initiated.get(ctx.services) ?? defaultConfig(ctx.services);
  return { config: { version: 1, term: Long.ONE, protocolVersion: Long.ONE, settings: {}, ...config }, ok: 1 };
};

function defaultConfig(services: EngineServices): Document {
  return { _id: services.options.replicaSetName, members: [{ _id: 0, host: services.advertisedAddress }] };
}

/**
 * `shutdown` (admin only): hands over to the owner's `onShutdownCommand` (the `svc-mongod`
 * executable exits). The connection closes without a reply, as mongod's does.
 * Without the hook (an engine inside an application) the command is refused (IllegalOperation).
 *
 * @example
 * await admin.command({shutdown: 1}); // MongoNetworkError: the server went away
 */
export const shutdownCommand: CommandHandler = (ctx) => {
  if (ctx.db !== "admin") throw new EngineError(ErrorCodes.Unauthorized, "shutdown may only be run against the admin database.");
  const hook = ctx.services.options.onShutdownCommand;
  if (!hook) throw new EngineError(ErrorCodes.IllegalOperation, "this engine runs inside an application: stop it from there");
  ctx.connection.close?.();
  setImmediate(hook);
  return { ok: 1 };
};
