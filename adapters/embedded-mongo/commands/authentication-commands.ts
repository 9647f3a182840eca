import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandHandler } from "./command-context.js";

/** The commands drivers authenticate a connection with (every mechanism). */
export const AUTHENTICATION_COMMANDS: ReadonlySet<string> = new Set(["saslStart", "saslContinue", "authenticate"]);

/**
 * `saslStart`, `saslContinue`, `authenticate`: the engine has no users, so a driver given
 * credentials (`mongodb://user:password@...`) fails its handshake here, with mongod's answer to
 * credentials it cannot verify, AuthenticationFailed (18): the driver raises it from `connect()`
 * unchanged, message included, and does not retry it.
 *
 * @example
 * await MongoClient.connect("mongodb://u:p@127.0.0.1:27017/"); // MongoServerError: Authentication is not supported...
 */
export const authenticationCommand: CommandHandler = () => {
  throw new EngineError(
    ErrorCodes.AuthenticationFailed,
    "Authentication is not supported by the embedded engine (it has no users): remove the credentials from the connection string (DB_URI), or use a real MongoDB",
  );
};
