/** Stable codes of the errors the data directory's recovery can raise at startup. */
export const JournalErrorCodes = {
  /** A record that acknowledged data depends on is damaged, or a file is missing. */
  Corrupt: "SVC_DB_JOURNAL_CORRUPT",
  /** A valid record cannot be applied (it contradicts the state rebuilt before it). */
  Unreplayable: "SVC_DB_JOURNAL_UNREPLAYABLE",
  /** The journal failed to write or fsync; later writes are refused (see `Journal.flush`). */
  WriteFailed: "SVC_DB_JOURNAL_WRITE_FAILED",
} as const;

export type JournalErrorCode = (typeof JournalErrorCodes)[keyof typeof JournalErrorCodes];

/**
 * An error about the files of a data directory. Startup refuses to continue on `Corrupt` and
 * `Unreplayable` rather than drop acknowledged writes silently; the message names the file and
 * byte offset so the damage can be inspected (or, knowingly, truncated away by hand).
 *
 * @example
 * try { await startEmbeddedMongo({dbPath}) } catch (e) { if (e instanceof JournalError) console.error(e.file, e.offset) }
 */
export class JournalError extends Error {
  override readonly name = "JournalError";

  constructor(
    readonly code: JournalErrorCode,
    message: string,
    readonly file?: string,
    readonly offset?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
