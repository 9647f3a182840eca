import type { Document } from "bson";
import { optionNumber } from "../bson-number.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import type { CommandHandler } from "./command-context.js";

/** The replica set the engine presents has one data-bearing member. */
const MEMBERS = 1;
/** mongod's upper bound for a numeric `w`. */
const MAX_W = 50;

/**
 * Gives a command MongoDB's write concern outcome on a one-member replica set. A `writeConcern`
 * that is not a document (TypeMismatch 14) or has a malformed `w` (FailedToParse 9) fails the
 * command before it runs; `j` and `wtimeout` are not checked. A well-formed one the set
 * can satisfy (`w` 0/1/"majority", `j`, `wtimeout`) changes nothing: every write is applied on
 * the only member, and made durable before the reply when the engine journals. One it cannot
 * satisfy — `w` above 1 (UnsatisfiableWriteConcern 100) or an unknown tag (UnknownReplWriteConcern
 * 79) — runs the command and then reports `writeConcernError`, as mongod does after applying a
 * write it cannot replicate; so commitTransaction with `w: 2` commits and reports the error
 * (drivers surface it as a write concern error, and `withTransaction` retries the commit).
 *
 * @example
 * add(withWriteConcern(insertCommand), "insert");
 */
export function withWriteConcern(handler: CommandHandler): CommandHandler {
  // Not async: most commands carry no write concern and must not pay for an extra promise.
  return (ctx) => {
    const concern = ctx.command["writeConcern"];
    if (concern === undefined || concern === null) return handler(ctx);
    const unsatisfiable = writeConcernProblem(concern);
    if (!unsatisfiable) return handler(ctx);
    const attach = (reply: Document): Document => {
      if (reply["ok"] !== 0 && reply["writeConcernError"] === undefined) reply["writeConcernError"] = unsatisfiable;
      return reply;
    };
    const reply = handler(ctx);
    return reply instanceof Promise ? reply.then(attach) : attach(reply);
  };
}

/** Throws for a malformed write concern; returns the `writeConcernError` of one the set cannot satisfy. */
function writeConcernProblem(concern: unknown): Document | undefined {
  if (typeof concern !== "object" || Array.isArray(concern)) {
    throw new EngineError(ErrorCodes.TypeMismatch, "BSON field 'writeConcern' is the wrong type, expected type 'object'");
  }
  const w = (concern as Document)["w"];
  if (w === undefined || w === "majority") return undefined;
  if (typeof w === "string") {
    return { code: UNKNOWN_REPL_WRITE_CONCERN, codeName: "UnknownReplWriteConcern", errmsg: `No write concern mode named '${w}' found in replica set configuration` };
  }
  const n = optionNumber(w);
  if (n === undefined || !Number.isInteger(n) || n < 0 || n > MAX_W) {
    throw new EngineError(ErrorCodes.FailedToParse, `w has to be a non-negative number and not greater than ${MAX_W}; found: ${String(w)}`);
  }
  if (n <= MEMBERS) return undefined;
  return { code: ErrorCodes.UnsatisfiableWriteConcern, codeName: "UnsatisfiableWriteConcern", errmsg: "Not enough data-bearing nodes" };
}

const UNKNOWN_REPL_WRITE_CONCERN = 79;
