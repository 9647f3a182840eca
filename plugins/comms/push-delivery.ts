import { failedResult, SEND_ERROR_CODES } from "../../contracts/comms-result.js";
import type { PushSender, PushTarget, PushTokenResult } from "../../contracts/push.js";
import type { CommsAttempt } from "./comms-message-model.js";
import type { PushNotification } from "./comms-options.js";
import { PROVIDER_THROW } from "./provider-chain.js";

interface TargetState {
  readonly target: PushTarget;
  readonly chain: readonly PushSender[];
  position: number;
  result?: PushTokenResult;
}

/**
 * Delivers one notification to many tokens (SPEC §6.3, §7): each token goes to the first
 * provider serving its kind; only the tokens that failed transiently are retried (once, after
 * `beforeRetry`); tokens still failing transiently or with a config error move to their next
 * provider. Returns one result per target, in order, and every provider call as an attempt.
 *
 * @example
 * const { results, attempts } = await deliverPush(senders, targets, { title: "Hi" }, { now, beforeRetry });
 */
export async function deliverPush(
  senders: readonly PushSender[],
  targets: readonly PushTarget[],
  notification: PushNotification,
  options: { now: () => Date; beforeRetry?: (attempt: number, result: PushTokenResult) => Promise<unknown> },
): Promise<{ results: PushTokenResult[]; attempts: CommsAttempt[] }> {
  const attempts: CommsAttempt[] = [];
  const states: TargetState[] = targets.map((target) => ({ target, chain: senders.filter((sender) => safeSupports(sender, target.kind)), position: 0 }));
  for (const state of states) {
    if (state.chain.length === 0) state.result = { token: state.target.token, ...failedResult(SEND_ERROR_CODES.channelNotConfigured, "config") };
  }
  let attempt = 0;
  const round = async (batch: TargetState[], isRetry: boolean) => {
    attempt++;
    const groups = new Map<PushSender, TargetState[]>();
    for (const state of batch) {
      const sender = state.chain[state.position]!;
      groups.set(sender, [...(groups.get(sender) ?? []), state]);
    }
    await Promise.all(
      [...groups].map(async ([sender, group]) => {
        let answered: unknown;
        try {
          answered = await sender.sendPush({ ...notification, targets: group.map((state) => state.target) });
        } catch {
          answered = [];
        }
        const list: readonly (PushTokenResult | undefined)[] = Array.isArray(answered) ? answered : [];
        group.forEach((state, index) => {
          const result = list[index];
          // An answer missing a token's result stands for a provider that did not deliver it.
          state.result = result && typeof result.accepted === "boolean" ? { ...result, token: state.target.token } : { token: state.target.token, ...PROVIDER_THROW };
        });
        const accepted = group.filter((state) => state.result!.accepted).length;
        const first = group.find((state) => !state.result!.accepted)?.result;
        attempts.push({
          at: options.now(),
          provider: sender.name,
          attempt,
          isRetry,
          outcome: accepted === group.length ? "accepted" : accepted === 0 ? "failed" : "partial",
          ...(first?.errorCode ? { errorCode: first.errorCode } : {}),
          ...(first?.errorClass ? { errorClass: first.errorClass } : {}),
          tokens: group.length,
        });
      }),
    );
  };

  const routable = states.filter((state) => state.chain.length > 0);
  if (routable.length > 0) await round(routable, false);
  const transient = routable.filter((state) => state.result && !state.result.accepted && state.result.errorClass === "transient");
  if (transient.length > 0) {
    await options.beforeRetry?.(attempt + 1, transient[0]!.result!);
    await round(transient, true);
  }
  for (;;) {
    const next = routable.filter(
      (state) => !state.result!.accepted && (state.result!.errorClass === "transient" || state.result!.errorClass === "config") && state.position + 1 < state.chain.length,
    );
    if (next.length === 0) break;
    for (const state of next) state.position++;
    await round(next, false);
  }
  return { results: states.map((state) => state.result!), attempts };
}

function safeSupports(sender: PushSender, kind: string): boolean {
  try {
    return sender.supports(kind);
  } catch {
    return false;
  }
}
