import type { ErrorTracker, ErrorTrackerContext, ErrorTrackerLogEntry } from "../../contracts/error-tracker.js";

/** One report kept by the in-memory tracker. */
export interface CapturedException {
  readonly error: unknown;
  readonly context: ErrorTrackerContext;
}

/**
 * An error tracker that keeps reports in memory, for tests that assert what was (or was not)
 * reported.
 *
 * @example
 * const tracker = new InMemoryErrorTracker();
 * app.override(ERROR_TRACKER, { useValue: tracker });
 * // ... request that fails with 500
 * tracker.exceptions[0].context.requestId;
 */
export class InMemoryErrorTracker implements ErrorTracker {
  readonly exceptions: CapturedException[] = [];
  readonly logs: ErrorTrackerLogEntry[] = [];
  private closed = false;

  captureException(error: unknown, context: ErrorTrackerContext = {}): void {
    if (!this.closed) this.exceptions.push({ error, context: { ...context } });
  }

  captureLog(entry: ErrorTrackerLogEntry): void {
    if (!this.closed) this.logs.push({ ...entry });
  }

  async flush(): Promise<boolean> {
    return true;
  }

  async close(): Promise<boolean> {
    this.closed = true;
    return true;
  }

  clear(): void {
    this.exceptions.length = 0;
    this.logs.length = 0;
  }
}
