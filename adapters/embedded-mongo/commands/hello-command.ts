import { Long, ObjectId } from "bson";
import type { Document } from "bson";
import type { EngineServices } from "../engine-services.js";
import { LOGICAL_SESSION_TIMEOUT_MINUTES } from "../sessions/logical-session.js";
import {
  MAX_BSON_OBJECT_SIZE,
  MAX_MESSAGE_SIZE_BYTES,
  MAX_WIRE_VERSION,
  MAX_WRITE_BATCH_SIZE,
  MIN_WIRE_VERSION,
} from "../wire/wire-constants.js";
import type { CommandContext, CommandHandler } from "./command-context.js";

/** A primary that never loses an election: the max term in the id's first bytes, like a fresh set. */
const ELECTION_ID = new ObjectId("7fffffff0000000000000001");

/**
 * `hello` / `isMaster`: describes a single-node replica-set primary (SDAM spec fields), so the
 * driver accepts both `?replicaSet=<name>` and `?directConnection=true` URIs. `topologyVersion`
 * never changes (the topology never does), which lets drivers use the streaming protocol; the
 * connection layer implements its awaitable, exhaust form.
 *
 * @example
 * await engine.runCommand("admin", {hello: 1}); // {isWritablePrimary: true, setName: "svc-rs", ...}
 */
export const helloCommand: CommandHandler = (ctx) => helloReply(ctx.services, ctx, ctx.name !== "hello");

export function helloReply(services: EngineServices, ctx: Pick<CommandContext, "command" | "connection">, legacy: boolean): Document {
  const address = services.advertisedAddress;
  const lastTs = services.storage.clock.current();
  const lastWriteDate = new Date(lastTs.high * 1000);
  const opTime = { ts: lastTs, t: Long.ONE };
  const reply: Document = {
    ...(ctx.command["helloOk"] === true ? { helloOk: true } : {}),
    ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
    topologyVersion: { processId: services.processId, counter: Long.ZERO },
    hosts: [address],
    setName: services.options.replicaSetName,
    setVersion: 1,
    secondary: false,
    primary: address,
    me: address,
    electionId: ELECTION_ID,
    lastWrite: { opTime, lastWriteDate, majorityOpTime: opTime, majorityWriteDate: lastWriteDate },
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
    maxWriteBatchSize: MAX_WRITE_BATCH_SIZE,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: LOGICAL_SESSION_TIMEOUT_MINUTES,
    connectionId: ctx.connection.id,
    minWireVersion: MIN_WIRE_VERSION,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
  return reply;
}
