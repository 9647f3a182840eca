import { failedResult, SEND_ERROR_CODES, type SendResult } from "../../contracts/comms-result.js";
import type { CommsAttempt } from "./comms-message-model.js";

/** What a chain run is told about each provider call, for hooks. */
export interface ChainCallbacks<R extends SendResult> {
  /** Before the inline retry (attempt 2), with the transient result that caused it. */
  beforeRetry?: (attempt: number, result: R) => Promise<unknown>;
}

/** A chain run's outcome: the final result, the provider that gave it, and every call. */
export interface ChainOutcome<R extends SendResult> {
  result: R;
  provider?: string;
  attempts: CommsAttempt[];
}

/**
 * Calls a provider and makes sure its answer is a result: a throw (or rejection, or an answer
 * that is not a result) becomes the transient `provider-throw` of SPEC §7.
 *
 * @example
 * const result = await callProvider(() => mailer.sendMail(message), (r) => r);
 */
export async function callProvider<R extends SendResult>(call: () => Promise<R>, onThrow: () => R): Promise<R> {
  try {
    const result = await call();
    if (result === null || typeof result !== "object" || typeof result.accepted !== "boolean") return onThrow();
    return result;
  } catch {
    return onThrow();
  }
}

/** The result a throwing provider stands for. */
export const PROVIDER_THROW: SendResult = failedResult(SEND_ERROR_CODES.providerThrow, "transient");

/**
 * Sends through an ordered list of providers (SPEC §6.3, §7 plus fallbacks): a transient failure
 * is retried once inline (`beforeRetry` first; at most one retry per send), then a transient or
 * config failure moves to the next provider; a permanent failure or an acceptance ends the run
 * (`settles` says otherwise for verification checks). With `retry: false` nothing is called twice.
 *
 * @example
 * const { result, attempts } = await runProviderChain(mailers, (m) => m.sendMail(mail), { now, retry: true, onThrow: () => PROVIDER_THROW });
 */
export async function runProviderChain<P extends { readonly name: string }, R extends SendResult>(
  providers: readonly P[],
  call: (provider: P) => Promise<R>,
  options: {
    now: () => Date;
    retry: boolean;
    onThrow: () => R;
    notConfigured: () => R;
    callbacks?: ChainCallbacks<R>;
    /** Whether a result ends the run (default: accepted, permanent, or unclassified). */
    settles?: (result: R) => boolean;
  },
): Promise<ChainOutcome<R>> {
  const settles = options.settles ?? ((result: R) => result.accepted || result.errorClass === "permanent" || result.errorClass === undefined);
  const attempts: CommsAttempt[] = [];
  if (providers.length === 0) return { result: options.notConfigured(), attempts };
  let attempt = 0;
  let retried = false;
  let result: R | undefined;
  let provider: P | undefined;
  const once = async (candidate: P, isRetry: boolean): Promise<R> => {
    attempt++;
    const answered = await callProvider(() => call(candidate), options.onThrow);
    attempts.push(attemptRecord(options.now(), candidate.name, attempt, isRetry, answered));
    return answered;
  };
  for (const candidate of providers) {
    provider = candidate;
    result = await once(candidate, false);
    if (!result.accepted && result.errorClass === "transient" && options.retry && !retried) {
      retried = true;
      await options.callbacks?.beforeRetry?.(attempt + 1, result);
      result = await once(candidate, true);
    }
    if (settles(result)) break;
  }
  return { result: result!, provider: provider?.name, attempts };
}

/** One `attempts[]` entry. */
export function attemptRecord(at: Date, provider: string, attempt: number, isRetry: boolean, result: SendResult, tokens?: number): CommsAttempt {
  return {
    at,
    provider,
    attempt,
    isRetry,
    outcome: result.accepted ? "accepted" : "failed",
    ...(result.errorCode !== undefined && !result.accepted ? { errorCode: result.errorCode } : {}),
    ...(result.errorClass !== undefined && !result.accepted ? { errorClass: result.errorClass } : {}),
    ...(result.providerMessageId !== undefined ? { providerMessageId: result.providerMessageId } : {}),
    ...(tokens !== undefined ? { tokens } : {}),
  };
}
