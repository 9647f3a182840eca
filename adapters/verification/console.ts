import { acceptedResult, failedResult, SEND_ERROR_CODES, type SendResult } from "../../contracts/comms-result.js";
import type { VerificationCheck, VerificationCheckResult, VerificationSender, VerificationStart } from "../../contracts/verification.js";
import type { SvcLogger } from "../../kernel/logger.js";

/** The code the console verifier approves unless told another. */
export const CONSOLE_VERIFICATION_CODE = "000000";

/**
 * The development verifier: logs the start and approves exactly one code (default `000000`) for
 * a recipient it started a verification for. It remembers those recipients in memory, so with
 * several app processes a check must reach the process that started it.
 *
 * @example
 * commsPlugin({ verification: new ConsoleVerificationSender({ code: "123456" }) });
 */
export class ConsoleVerificationSender implements VerificationSender {
  readonly name = "console";
  private readonly logger?: SvcLogger;
  private readonly code: string;
  // Bounded: a development verifier must not grow without limit in a long-running demo.
  private readonly pending = new Set<string>();

  constructor(options: { logger?: SvcLogger; code?: string } = {}) {
    this.logger = options.logger;
    this.code = options.code ?? CONSOLE_VERIFICATION_CODE;
  }

  async startVerification(options: VerificationStart): Promise<SendResult> {
    if (typeof options?.to !== "string" || options.to === "") return failedResult(SEND_ERROR_CODES.invalidRecipient, "permanent");
    if (this.pending.size >= 1000) this.pending.clear();
    this.pending.add(options.to);
    this.logger?.info(`Verification (console): the code is ${this.code}`, { to: options.to, channel: options.channel });
    return acceptedResult();
  }

  async checkVerification(options: VerificationCheck): Promise<VerificationCheckResult> {
    const approved = this.pending.has(options?.to) && options?.code === this.code;
    if (approved) this.pending.delete(options.to);
    return { ...acceptedResult(), approved };
  }
}
