import twilio from "twilio";
import { acceptedResult, failedResult, SEND_ERROR_CODES, type SendResult } from "../../contracts/comms-result.js";
import type { VerificationCheck, VerificationCheckResult, VerificationSender, VerificationStart } from "../../contracts/verification.js";
import type { Environment } from "../../kernel/environment.js";
import { classifyTwilioError } from "../sms/twilio-errors.js";
import { VerificationAdapterErrors } from "./errors.js";

/** Options of `TwilioVerificationSender`. */
export interface TwilioVerificationOptions {
  /** Default `TWILIO_ACCOUNT_SID`. */
  accountSid?: string;
  /** Default `TWILIO_AUTH_TOKEN`. */
  authToken?: string;
  /** The Verify service (`VA…`); default `TWILIO_VERIFY_SERVICE_SID`. */
  serviceSid?: string;
  env?: Environment;
  /** The provider name in the delivery log (default `twilio-verify`). */
  name?: string;
}

/**
 * Verification through Twilio Verify, on the official `twilio` library: Twilio makes, sends and
 * checks the code. A check that Twilio answers 404 (no pending verification: expired, used, or
 * never started) is an answered, unapproved check, not a failure.
 *
 * @example
 * commsPlugin({ verification: new TwilioVerificationSender({ serviceSid: "VA…" }) });
 */
export class TwilioVerificationSender implements VerificationSender {
  readonly name: string;
  private readonly service: ReturnType<twilio.Twilio["verify"]["v2"]["services"]>;

  constructor(options: TwilioVerificationOptions = {}) {
    const env = options.env ?? process.env;
    const accountSid = options.accountSid ?? env.TWILIO_ACCOUNT_SID;
    const authToken = options.authToken ?? env.TWILIO_AUTH_TOKEN;
    const serviceSid = options.serviceSid ?? env.TWILIO_VERIFY_SERVICE_SID;
    if (!accountSid || !authToken) throw VerificationAdapterErrors.CREDENTIALS_REQUIRED();
    if (!serviceSid) throw VerificationAdapterErrors.SERVICE_REQUIRED();
    this.name = options.name ?? "twilio-verify";
    // Verifications are sporadic: no kept-alive socket (as for SMS).
    this.service = twilio(accountSid, authToken, { keepAlive: false }).verify.v2.services(serviceSid);
  }

  async startVerification(options: VerificationStart): Promise<SendResult> {
    if (typeof options?.to !== "string" || options.to === "") return failedResult(SEND_ERROR_CODES.invalidRecipient, "permanent");
    try {
      const started = await this.service.verifications.create({ to: options.to, channel: options.channel });
      if (typeof started?.sid !== "string") return failedResult(SEND_ERROR_CODES.malformedResponse, "transient");
      return acceptedResult({ providerMessageId: started.sid });
    } catch (error) {
      return classifyTwilioError(error);
    }
  }

  async checkVerification(options: VerificationCheck): Promise<VerificationCheckResult> {
    if (typeof options?.to !== "string" || typeof options.code !== "string" || options.code === "") return { ...acceptedResult(), approved: false };
    try {
      const checked = await this.service.verificationChecks.create({ to: options.to, code: options.code });
      if (typeof checked?.status !== "string") return { ...failedResult(SEND_ERROR_CODES.malformedResponse, "transient"), approved: false };
      return { ...acceptedResult(typeof checked.sid === "string" ? { providerMessageId: checked.sid } : {}), approved: checked.status === "approved" };
    } catch (error) {
      if ((error as { status?: unknown })?.status === 404) return { ...acceptedResult(), approved: false };
      return { ...classifyTwilioError(error), approved: false };
    }
  }
}
