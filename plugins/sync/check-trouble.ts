import type { SvcLogger } from "../../kernel/logger.js";

/**
 * Checks every socket of one server repeats that could not be made (the database away, not a
 * refused credential): the first failure of an outage is a warning, the next ones are debug lines,
 * and the first check that goes through again ends it with one info line. Without it, every
 * socket's periodic check logged its own line: thousands a minute.
 *
 * @example
 * const credentialChecks = new CheckTrouble(logger, { failure: "could not check a socket's credential", consequence: "sockets stay connected until a check goes through", recovery: "socket credentials can be checked again" });
 * credentialChecks.failed(error); // warns once
 * credentialChecks.succeeded(); // "Sync: socket credentials can be checked again"
 */
export class CheckTrouble {
  private failures = 0;

  constructor(
    private readonly logger: SvcLogger,
    private readonly say: { readonly failure: string; readonly consequence: string; readonly recovery: string },
  ) {}

  failed(error: unknown): void {
    this.failures++;
    const reason = error instanceof Error ? error.message : String(error);
    if (this.failures === 1) this.logger.warn(`Sync: ${this.say.failure}; ${this.say.consequence} (further failures are logged at debug level)`, { reason });
    else this.logger.debug(`Sync: ${this.say.failure}`, { reason, failures: this.failures });
  }

  succeeded(): void {
    if (this.failures === 0) return;
    this.logger.info(`Sync: ${this.say.recovery}`, { failedChecks: this.failures });
    this.failures = 0;
  }
}

/** The two checks every socket repeats, each logged once per outage (see {@link CheckTrouble}). */
export function socketCheckTrouble(logger: SvcLogger): { readonly credential: CheckTrouble; readonly streams: CheckTrouble } {
  return {
    credential: new CheckTrouble(logger, { failure: "could not check a socket's credential", consequence: "sockets stay connected until a check goes through", recovery: "socket credentials can be checked again" }),
    streams: new CheckTrouble(logger, { failure: "could not look up a socket's streams", consequence: "subscriptions stay as they are until a lookup goes through", recovery: "socket streams can be looked up again" }),
  };
}
