import { HEADER_SIZE, MAX_MESSAGE_SIZE_BYTES } from "./wire-constants.js";

/** A complete wire message cut out of the byte stream, header included. */
export interface FramedMessage {
  readonly requestId: number;
  readonly responseTo: number;
  readonly opCode: number;
  /** The whole message (header + body); `body` is a view into it past the header. */
  readonly bytes: Buffer;
  readonly body: Buffer;
}

/** Thrown when the byte stream cannot be a MongoDB message stream; the connection must close. */
export class FramingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FramingError";
  }
}

/**
 * Cuts a TCP byte stream into wire messages by their `messageLength` header. It buffers partial
 * chunks without copying until a message is complete, and rejects a header announcing a length
 * outside [16, maxMessageSize] as soon as the first four bytes arrive, so a hostile "100 MB"
 * header never makes us buffer 100 MB.
 *
 * @example
 * const framer = new MessageFramer();
 * socket.on("data", (chunk) => { for (const message of framer.push(chunk)) handle(message); });
 */
export class MessageFramer {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Length of the message being assembled, once its header has been read. */
  private expected = -1;

  constructor(private readonly maxMessageSize: number = MAX_MESSAGE_SIZE_BYTES) {}

  /** Bytes held for an incomplete message (the server closes a connection that ends with some). */
  get pendingBytes(): number {
    return this.buffered;
  }

  /** Adds a chunk and returns every message it completed (possibly none). Throws `FramingError`. */
  push(chunk: Buffer): FramedMessage[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: FramedMessage[] = [];
    for (;;) {
      if (this.expected < 0) {
        if (this.buffered < 4) break;
        const length = this.peekInt32();
        if (length < HEADER_SIZE || length > this.maxMessageSize) {
          throw new FramingError(
            `invalid message length ${length} (allowed ${HEADER_SIZE}..${this.maxMessageSize} bytes)`,
          );
        }
        this.expected = length;
      }
      if (this.buffered < this.expected) break;
      const bytes = this.take(this.expected);
      this.expected = -1;
      messages.push({
        requestId: bytes.readInt32LE(4),
        responseTo: bytes.readInt32LE(8),
        opCode: bytes.readInt32LE(12),
        bytes,
        body: bytes.subarray(HEADER_SIZE),
      });
    }
    return messages;
  }

  private peekInt32(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first.readInt32LE(0);
    return Buffer.concat(this.chunks, 4).readInt32LE(0);
  }

  /** Removes exactly `length` bytes from the front, copying only when they span chunks. */
  private take(length: number): Buffer {
    const first = this.chunks[0]!;
    let result: Buffer;
    if (first.length >= length) {
      result = first.subarray(0, length);
      if (first.length === length) this.chunks.shift();
      else this.chunks[0] = first.subarray(length);
    } else {
      const all = Buffer.concat(this.chunks, this.buffered);
      result = all.subarray(0, length);
      this.chunks = all.length > length ? [all.subarray(length)] : [];
    }
    this.buffered -= length;
    return result;
  }
}
