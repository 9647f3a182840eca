import { token } from "../kernel/container.js";
import type { SendResult } from "./comms-result.js";

/** Where a code goes. */
export type VerificationChannel = "sms" | "call" | "email";

/** Starts a verification: the provider makes and sends the code. */
export interface VerificationStart {
  /** A phone number (E.164) or an email address, per `channel`. */
  readonly to: string;
  readonly channel: VerificationChannel;
}

/** Checks the code the user typed. */
export interface VerificationCheck {
  readonly to: string;
  readonly code: string;
}

/** A check's result: `accepted` says the provider answered, `approved` whether the code was right. */
export interface VerificationCheckResult extends SendResult {
  readonly approved: boolean;
}

/**
 * The verification port (Twilio Verify, the console). Neither method throws.
 *
 * @example
 * await verification.startVerification({ to: "+14155550100", channel: "sms" });
 * const { approved } = await verification.checkVerification({ to: "+14155550100", code: "123456" });
 */
export interface VerificationSender {
  readonly name: string;
  startVerification(options: VerificationStart): Promise<SendResult>;
  checkVerification(options: VerificationCheck): Promise<VerificationCheckResult>;
}

/** The verification providers the comms plugin uses, first first. */
export const VERIFICATION_SENDERS = token<readonly VerificationSender[]>("comms.VerificationSenders");
