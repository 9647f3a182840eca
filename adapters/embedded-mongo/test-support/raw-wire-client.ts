import net from "node:net";
import { deserialize, serialize } from "bson";
import type { Document } from "bson";

/**
 * A bare-bones wire client for tests: sends hand-built messages and reads whole replies, so tests
 * can exercise framing, legacy opcodes and hostile input the real driver would never send.
 *
 * @example
 * const raw = await RawWireClient.connect(port);
 * raw.send(opMsg({ping: 1, $db: "admin"}));
 * const reply = await raw.nextReply(); // {ok: 1, ...}
 */
export class RawWireClient {
  private buffer = Buffer.alloc(0);
  private waiters: Array<(message: Buffer) => void> = [];
  readonly closed: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      while (this.buffer.length >= 4 && this.buffer.length >= this.buffer.readInt32LE(0)) {
        const length = this.buffer.readInt32LE(0);
        const message = this.buffer.subarray(0, length);
        this.buffer = this.buffer.subarray(length);
        this.waiters.shift()?.(message);
      }
    });
    socket.on("error", () => {});
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()));
  }

  static connect(port: number): Promise<RawWireClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => resolve(new RawWireClient(socket)));
      socket.once("error", reject);
    });
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next whole reply message (header included). */
  nextMessage(): Promise<Buffer> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The next OP_MSG reply's body document. */
  async nextReply(): Promise<Document> {
    const message = await this.nextMessage();
    return deserialize(message.subarray(21));
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** An OP_MSG with a kind-0 body, optional kind-1 sequences, flags and an optional checksum. */
export function opMsg(
  body: Document,
  options: { requestId?: number; flags?: number; sequences?: Record<string, Document[]>; checksum?: boolean } = {},
): Buffer {
  const parts: Buffer[] = [Buffer.from([0]), Buffer.from(serialize(body))];
  for (const [identifier, docs] of Object.entries(options.sequences ?? {})) {
    const payload = Buffer.concat([Buffer.from(`${identifier}\0`, "utf8"), ...docs.map((doc) => Buffer.from(serialize(doc)))]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(payload.length + 4, 0);
    parts.push(Buffer.from([1]), size, payload);
  }
  const flags = (options.flags ?? 0) | (options.checksum ? 1 : 0);
  const sections = Buffer.concat(parts);
  const header = Buffer.alloc(20);
  const length = 20 + sections.length + (options.checksum ? 4 : 0);
  header.writeInt32LE(length, 0);
  header.writeInt32LE(options.requestId ?? 1, 4);
  header.writeInt32LE(0, 8);
  header.writeInt32LE(2013, 12);
  header.writeUInt32LE(flags >>> 0, 16);
  return Buffer.concat([header, sections, options.checksum ? Buffer.from([0xde, 0xad, 0xbe, 0xef]) : Buffer.alloc(0)]);
}

/** A legacy OP_QUERY command on `db.$cmd`. */
export function opQuery(db: string, query: Document, requestId = 1): Buffer {
  const name = Buffer.from(`${db}.$cmd\0`, "utf8");
  const doc = Buffer.from(serialize(query));
  const fixed = Buffer.alloc(4);
  const counts = Buffer.alloc(8);
  counts.writeInt32LE(0, 0);
  counts.writeInt32LE(-1, 4);
  const body = Buffer.concat([fixed, name, counts, doc]);
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + body.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(0, 8);
  header.writeInt32LE(2004, 12);
  return Buffer.concat([header, body]);
}
