/**
 * An error with a stable code. The `code` is what callers and tests match on; the message is for
 * humans and may change. Build them through a catalogue (`defineErrors`), not by hand.
 *
 * @example
 * throw KernelErrors.DUPLICATE_PLUGIN("auth"); // SvcError, code "KERNEL_DUPLICATE_PLUGIN"
 */
export class SvcError extends Error {
  /** Stable, upper-snake-case identifier, e.g. `KERNEL_PHASE_TIMEOUT`. */
  readonly code: string;
  /** HTTP status when the error reaches a response; 500 for programmer and start-up errors. */
  readonly status: number;

  constructor(code: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SvcError";
    this.code = code;
    this.status = options.status ?? 500;
  }
}

/**
 * True when `error` is an `SvcError` with the given code (or the code of a catalogue entry).
 *
 * @example
 * if (hasErrorCode(error, KernelErrors.PHASE_TIMEOUT)) retry();
 */
export function hasErrorCode(error: unknown, code: string | { code: string }): error is SvcError {
  const expected = typeof code === "string" ? code : code.code;
  return error instanceof SvcError && error.code === expected;
}
