import type { Socket } from "node:net";
import type { Document } from "bson";
import type { ConnectionInfo } from "../commands/command-context.js";
import { optionNumber } from "../bson-number.js";
import { encodeReply } from "../cursors/cursor-reply-encoder.js";
import type { Engine } from "../engine.js";
import { EngineError, ErrorCodes } from "../engine-error.js";
import { encodeBson } from "./bson-codec.js";
import { FramingError, MessageFramer } from "./message-framer.js";
import type { FramedMessage } from "./message-framer.js";
import { decodeOpMsg, encodeOpMsg, MalformedMessageError } from "./op-msg.js";
import { decodeOpQuery, encodeOpReply } from "./op-query.js";
import { MAX_MESSAGE_SIZE_BYTES, OpCode } from "./wire-constants.js";

const HELLO_NAMES = new Set(["hello", "isMaster", "ismaster"]);

/** Hands out request ids for server-originated messages (replies). */
export type RequestIdSource = () => number;

/**
 * One client socket: frames messages, runs them one at a time in arrival order (mongod never
 * pipelines requests on a connection), and writes replies. Anything that is not a well-formed
 * MongoDB message closes *this* socket with a logged error and nothing else; the server keeps
 * serving other clients.
 *
 * It also implements the SDAM streaming protocol for `hello` with `topologyVersion` and
 * `maxAwaitTimeMS`: the reply is held for `maxAwaitTimeMS` (the topology never changes), and with
 * `exhaustAllowed` further replies follow every `maxAwaitTimeMS` with `moreToCome` set, until the
 * client closes the connection.
 */
export class ClientConnection {
  readonly info: ConnectionInfo;
  private readonly framer = new MessageFramer(MAX_MESSAGE_SIZE_BYTES);
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private awaitTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly engine: Engine,
    id: number,
    private readonly nextRequestId: RequestIdSource,
    private readonly onClose: (connection: ClientConnection) => void,
  ) {
    this.info = { id, remoteAddress: `${socket.remoteAddress ?? "unknown"}:${socket.remotePort ?? 0}`, close: () => this.destroy() };
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (error) => engine.logger.debug(`embedded-mongo: connection ${id} socket error`, error));
    socket.on("close", () => this.cleanup());
  }

  /** Closes the socket now (server shutdown). */
  destroy(): void {
    this.socket.destroy();
    this.cleanup();
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    let messages: FramedMessage[];
    try {
      messages = this.framer.push(chunk);
    } catch (error) {
      this.fail(error);
      return;
    }
    for (const message of messages) {
      this.queue = this.queue.then(() => (this.closed ? undefined : this.handle(message))).catch((error) => this.fail(error));
    }
  }

  private async handle(message: FramedMessage): Promise<void> {
    switch (message.opCode) {
      case OpCode.OP_MSG:
        return this.handleOpMsg(message);
      case OpCode.OP_QUERY:
        return this.handleOpQuery(message);
      case OpCode.OP_COMPRESSED:
        throw new MalformedMessageError("OP_COMPRESSED received but no compressor was negotiated");
      default:
        throw new MalformedMessageError(`unsupported opCode ${message.opCode}`);
    }
  }

  private async handleOpMsg(message: FramedMessage): Promise<void> {
    const request = decodeOpMsg(message.body);
    const db = request.command["$db"];
    let reply: Document;
    if (typeof db !== "string") {
      reply = new EngineError(40571, "OP_MSG requests require a $db argument").toReply();
    } else {
      const name = Object.keys(request.command)[0] ?? "";
      if (HELLO_NAMES.has(name) && request.command["maxAwaitTimeMS"] !== undefined && request.command["topologyVersion"] !== undefined) {
        this.awaitableHello(message.requestId, db, request.command, request.exhaustAllowed);
        return;
      }
      reply = await this.engine.execute(db, request.command, this.info);
    }
    if (request.moreToCome) return;
    this.write(encodeOpMsg(this.nextRequestId(), message.requestId, this.encode(reply)));
  }

  private async handleOpQuery(message: FramedMessage): Promise<void> {
    const { fullCollectionName, query } = decodeOpQuery(message.body);
    let reply: Document;
    if (!fullCollectionName.endsWith(".$cmd")) {
      reply = new EngineError(ErrorCodes.CommandNotSupported, "OP_QUERY is only supported for commands (db.$cmd)").toReply();
    } else {
      const db = fullCollectionName.slice(0, -".$cmd".length);
      // Legacy drivers may wrap the command: {$query: {...}, $readPreference: {...}}.
      const inner = query["$query"];
      const command = typeof inner === "object" && inner !== null && !Array.isArray(inner) ? (inner as Document) : query;
      reply = await this.engine.execute(db, command, this.info);
    }
    this.write(encodeOpReply(this.nextRequestId(), message.requestId, this.encode(reply)));
  }

  /** Holds a streaming-protocol `hello` for `maxAwaitTimeMS`, then answers (repeatedly if exhaust). */
  private awaitableHello(requestId: number, db: string, command: Document, exhaust: boolean): void {
    const waitMs = Math.max(0, Math.min(optionNumber(command["maxAwaitTimeMS"]) ?? 0, 24 * 3600 * 1000));
    let responseTo = requestId;
    const send = async (): Promise<void> => {
      this.awaitTimer = undefined;
      if (this.closed) return;
      const reply = await this.engine.execute(db, command, this.info);
      if (this.closed) return;
      const id = this.nextRequestId();
      this.write(encodeOpMsg(id, responseTo, encodeBson(reply), exhaust));
      if (exhaust) {
        responseTo = id;
        this.awaitTimer = setTimeout(() => void send().catch((error) => this.fail(error)), waitMs);
      }
    };
    this.awaitTimer = setTimeout(() => void send().catch((error) => this.fail(error)), waitMs);
  }

  /** Serializes a reply; a reply that cannot be sent becomes an error reply, never a dropped socket. */
  private encode(reply: Document): Buffer {
    let body: Buffer;
    try {
      body = encodeReply(reply);
    } catch (error) {
      // e.g. a single computed document over bson's 16 MiB limit.
      return encodeBson(
        new EngineError(ErrorCodes.BSONObjectTooLarge, `the reply could not be serialized: ${(error as Error).message}`).toReply(),
      );
    }
    if (body.length > MAX_MESSAGE_SIZE_BYTES) {
      return encodeBson(new EngineError(ErrorCodes.BSONObjectTooLarge, `reply of ${body.length} bytes exceeds the maximum message size`).toReply());
    }
    return body;
  }

  private write(bytes: Buffer): void {
    if (!this.closed) this.socket.write(bytes);
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    const expected = error instanceof FramingError || error instanceof MalformedMessageError;
    this.engine.logger.error(
      `embedded-mongo: closing connection ${this.info.id} from ${this.info.remoteAddress}: ${expected ? (error as Error).message : "internal error"}`,
      ...(expected ? [] : [error]),
    );
    this.destroy();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.awaitTimer) clearTimeout(this.awaitTimer);
    this.awaitTimer = undefined;
    if (this.framer.pendingBytes > 0) {
      this.engine.logger.error(
        `embedded-mongo: connection ${this.info.id} from ${this.info.remoteAddress} closed in the middle of a message (truncated after ${this.framer.pendingBytes} bytes)`,
      );
    }
    this.onClose(this);
  }
}
