import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { findValidRecordAfter, readRecord } from "./record-framing.js";

/** Bytes read from disk at a time (a record larger than this is read whole). */
const CHUNK_BYTES = 1 << 20;

/** One record of a file and where it starts. */
export interface FileRecord {
  readonly offset: number;
  readonly payload: Buffer;
}

/**
 * Where the valid records of a file end. `damage` is absent when the file ends exactly after a
 * record; otherwise it describes the first bad byte range. `torn` means nothing valid follows
 * the damage — what a write cut short by a crash leaves — so dropping it loses nothing that was
 * ever acknowledged (acknowledgement waits for the whole write to reach the disk).
 */
export interface FileTail {
  readonly validEnd: number;
  readonly size: number;
  readonly damage?: { readonly offset: number; readonly reason: string; readonly torn: boolean };
}

/**
 * Reads the records of a journal segment or snapshot in order, a chunk at a time. After `next()`
 * returns `undefined`, `tail()` tells how the file ended.
 *
 * @example
 * const reader = await RecordFileReader.open(file);
 * for (let record; (record = await reader.next()); ) apply(record.payload);
 * const {damage} = await reader.tail();
 * await reader.close();
 */
export class RecordFileReader {
  private buffer = Buffer.alloc(0);
  /** File offset of `buffer[0]`. */
  private bufferStart = 0;
  /** Offset within `buffer` of the next record. */
  private position = 0;
  private damage: { offset: number; reason: string } | undefined;
  private finished = false;

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  static async open(file: string): Promise<RecordFileReader> {
    const handle = await open(file, "r");
    try {
      const { size } = await handle.stat();
      return new RecordFileReader(file, handle, size);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The next valid record, or `undefined` at the end of the file or at the first damage. */
  async next(): Promise<FileRecord | undefined> {
    while (!this.finished) {
      const read = readRecord(this.buffer, this.position);
      const offset = this.bufferStart + this.position;
      if (read.status === "ok") {
        this.position = read.end;
        return { offset, payload: read.payload };
      }
      if (read.status === "invalid") {
        this.stop(offset, read.reason);
        break;
      }
      const loadedEnd = this.bufferStart + this.buffer.length;
      if (loadedEnd >= this.size) {
        if (offset < this.size) this.stop(offset, `record extends past the end of the file (${this.size - offset} bytes left)`);
        this.finished = true;
        break;
      }
      await this.load(Math.max(read.needed, CHUNK_BYTES));
    }
    return undefined;
  }

  /** How the file ends (call after `next()` returned `undefined`). */
  async tail(): Promise<FileTail> {
    if (!this.damage) return { validEnd: this.bufferStart + this.position, size: this.size };
    const { offset, reason } = this.damage;
    // Anything valid after the damage? Only then is it corruption rather than a torn write.
    const rest = Buffer.alloc(this.size - offset);
    await this.readFully(rest, offset);
    const torn = findValidRecordAfter(rest, 0) === undefined;
    return { validEnd: offset, size: this.size, damage: { offset, reason, torn } };
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private stop(offset: number, reason: string): void {
    this.damage = { offset, reason };
    this.finished = true;
  }

  /** Keeps the unread bytes and appends at least `wanted` more (or up to the end of the file). */
  private async load(wanted: number): Promise<void> {
    const keep = this.buffer.subarray(this.position);
    const start = this.bufferStart + this.position;
    const loadedEnd = this.bufferStart + this.buffer.length;
    const more = Math.min(Math.max(wanted - keep.length, CHUNK_BYTES), this.size - loadedEnd);
    const next = Buffer.allocUnsafe(keep.length + more);
    keep.copy(next, 0);
    await this.readFully(next.subarray(keep.length), loadedEnd);
    this.buffer = next;
    this.bufferStart = start;
    this.position = 0;
  }

  private async readFully(target: Buffer, fileOffset: number): Promise<void> {
    let done = 0;
    while (done < target.length) {
      const { bytesRead } = await this.handle.read(target, done, target.length - done, fileOffset + done);
      if (bytesRead === 0) throw new Error(`${this.file}: unexpected end of file at ${fileOffset + done}`);
      done += bytesRead;
    }
  }
}
