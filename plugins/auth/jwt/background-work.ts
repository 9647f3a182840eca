import type { SvcLogger } from "../../../kernel/logger.js";

/**
 * What auth does after answering — mailed links (reset, verification, email change) and the
 * app's hooks (`onSignup`, `emailChange.onChanged`): a failure is logged, never answered, and a
 * stop waits for the work under way. One per JWT provider.
 *
 * @example
 * const background = new BackgroundWork(logger);
 * background.run("Password-reset mail", () => send(link));
 * await background.settled(); // on stop
 */
export class BackgroundWork {
  private readonly sending = new Set<Promise<void>>();

  constructor(private readonly logger: SvcLogger) {}

  /**
   * Starts `work` off the request path; `what` names it in the error log line. A `work` that
   * throws at once (an app's synchronous hook) is logged the same way.
   */
  run(what: string, work: () => unknown, fields: Record<string, unknown> = {}): void {
    const sent = (async () => void (await work()))().catch((error: unknown) => {
      this.logger.error(`${what} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, {
        ...fields,
        stack: error instanceof Error ? error.stack : undefined,
      });
    });
    this.sending.add(sent);
    void sent.finally(() => this.sending.delete(sent));
  }

  /** Resolves once all work under way has ended (or failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.sending]);
  }
}
