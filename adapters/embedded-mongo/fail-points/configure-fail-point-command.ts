import type { CommandHandler } from "../commands/command-context.js";
import { EngineError, ErrorCodes } from "../engine-error.js";

/**
 * `configureFailPoint` (admin database only, as on mongod): sets a fail point's `mode` and
 * `data` and answers `count`, how many times the point had fired before. Registered only when
 * the engine runs with test commands enabled (see `EngineOptions.enableTestCommands`).
 *
 * @example
 * await client.db("admin").command({configureFailPoint: "failCommand", mode: {times: 1},
 *   data: {failCommands: ["insert"], errorCode: 91}}); // {count: 0, ok: 1}
 */
export const configureFailPointCommand: CommandHandler = (ctx) => {
  if (ctx.db !== "admin") {
    throw new EngineError(ErrorCodes.Unauthorized, "configureFailPoint may only be run against the admin database.");
  }
  const name = ctx.command["configureFailPoint"];
  if (typeof name !== "string") {
    throw new EngineError(ErrorCodes.TypeMismatch, "BSON field 'configureFailPoint' is the wrong type, expected type 'string'");
  }
  const count = ctx.services.failPoints.configure(name, ctx.command);
  ctx.services.logger.info(`embedded-mongo: set fail point ${name}`);
  return { count, ok: 1 };
};
