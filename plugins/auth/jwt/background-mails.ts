import type { SvcLogger } from "../../../kernel/logger.js";

/**
 * Mails auth prepares and sends after answering (reset and verification links): a failure is
 * logged, never answered, and a stop can wait for the ones under way.
 *
 * @example
 * const mails = new BackgroundMails(logger);
 * mails.run("Password-reset mail", () => send(link));
 * await mails.settled(); // on stop
 */
export class BackgroundMails {
  private readonly sending = new Set<Promise<void>>();

  constructor(private readonly logger: SvcLogger) {}

  /** Starts `work` off the request path; `what` names it in the error log line. */
  run(what: string, work: () => Promise<void>, fields: Record<string, unknown> = {}): void {
    const sent = work().catch((error: unknown) => {
      this.logger.error(`${what} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, {
        ...fields,
        stack: error instanceof Error ? error.stack : undefined,
      });
    });
    this.sending.add(sent);
    void sent.finally(() => this.sending.delete(sent));
  }

  /** Resolves once every mail under way has been handed to the app's `send` (or failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.sending]);
  }
}
