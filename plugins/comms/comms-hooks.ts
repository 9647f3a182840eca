import type { SvcLogger } from "../../kernel/logger.js";

/** The marker `metadata.hookErrors` records for a hook that threw (never its message: it may hold personal data). */
export const HOOK_THREW = "threw";

/**
 * Runs user hooks so that none can change a send: a throw (or rejection) is logged with the hook's
 * name and marked in `hookErrors`, and the hook's value is `undefined`.
 *
 * @example
 * const hooks = new HookRunner(logger);
 * await hooks.run("onSend", () => options.onSend?.(context, result));
 * row.metadata.hookErrors = hooks.errors();
 */
export class HookRunner {
  private readonly failed: Record<string, string> = {};
  private any = false;

  constructor(
    private readonly logger: SvcLogger,
    private readonly messageId?: string,
  ) {}

  async run<R>(name: string, call: () => R | Promise<R>): Promise<R | undefined> {
    try {
      return await call();
    } catch (error) {
      this.any = true;
      this.failed[name] = HOOK_THREW;
      this.logger.warn(`Comms hook ${name} threw; the send goes on: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, {
        hook: name,
        commsMessageId: this.messageId,
        stack: error instanceof Error ? error.stack : undefined,
      });
      return undefined;
    }
  }

  /** The markers so far, or undefined when no hook threw. */
  errors(): Record<string, string> | undefined {
    return this.any ? { ...this.failed } : undefined;
  }
}
