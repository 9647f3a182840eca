import { Types } from "mongoose";
import { failedResult, SEND_ERROR_CODES, type SendResult } from "../../contracts/comms-result.js";
import type { DeliveryEvent, OptOutEvent } from "../../contracts/delivery-webhook.js";
import type { Mailer, MailMessage } from "../../contracts/mailer.js";
import type { PushSender, PushTokenResult } from "../../contracts/push.js";
import type { SmsMessage, SmsSender } from "../../contracts/sms.js";
import type { VerificationCheck, VerificationCheckResult, VerificationSender, VerificationStart } from "../../contracts/verification.js";
import type { ErrorTracker } from "../../contracts/error-tracker.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { HookRunner } from "./comms-hooks.js";
import { REDACTED, type CommsAttempt, type CommsChannel, type CommsMessageFields, type CommsMessageModel, type CommsOperation, type CommsStatus } from "./comms-message-model.js";
import type { CommsAppOptions, CommsHookContext, CommsPayload, PushNotification } from "./comms-options.js";
import { DeliveryLog } from "./delivery-log.js";
import { applyDeliveryEvent } from "./delivery-events.js";
import { recipientsOf, retainedPayload } from "./payload-retention.js";
import { PROVIDER_THROW, runProviderChain } from "./provider-chain.js";
import { deliverPush } from "./push-delivery.js";
import type { PushTokenModel } from "./push-token-model.js";

/** A service call's result: the send result plus the delivery-log row's id and status. */
export interface CommsSendResult extends SendResult {
  /** The `CommsMessage` row's id (also when `logMessages` is false: hooks saw the same id). */
  readonly messageId: string;
  readonly status: CommsStatus;
}

/** `sendPushToUser`'s result: accepted when any token was; one result per active token. */
export interface PushSendResult extends CommsSendResult {
  readonly tokens: readonly PushTokenResult[];
}

/** `checkVerification`'s result: `approved` says whether the code was right. */
export interface VerificationCheckOutcome extends CommsSendResult {
  readonly approved: boolean;
}

/**
 * The comms service (SPEC §4.5): every method resolves, never rejects. Sends go through the
 * channel's providers with the retries and hooks of SPEC §6.3, and each writes one delivery-log
 * row unless `logMessages` is false.
 *
 * @example
 * const comms = commsPlugin({ mail: new ConsoleMailer() });
 * // once the app started:
 * const result = await comms.getCommsService().sendMail({ to: "ada@example.com", subject: "Hi", text: "Hello" });
 * if (!result.accepted) logger.warn("welcome mail failed", { code: result.errorCode });
 */
export interface CommsService {
  sendMail(message: MailMessage): Promise<CommsSendResult>;
  sendSms(message: SmsMessage): Promise<CommsSendResult>;
  /** Notifies every active token of the user; tokens that fail permanently are deactivated. */
  sendPushToUser(userId: string, notification: PushNotification): Promise<PushSendResult>;
  startVerification(options: VerificationStart): Promise<CommsSendResult>;
  /** Never retried (SPEC §7). */
  checkVerification(options: VerificationCheck): Promise<VerificationCheckOutcome>;
  /**
   * For adapters' webhooks: applies a delivery event to the matching row; `recorded` false when
   * none matched or it was a repeat, and `failed` true when the database write failed (logged), so
   * a webhook can have the provider deliver it again.
   */
  recordDeliveryEvent(event: DeliveryEvent): Promise<{ recorded: boolean; failed?: true }>;
  /** For adapters' webhooks: tells `onOptOut`. */
  recordOptOut(event: OptOutEvent): Promise<void>;
  /** Unsets payloads older than `retainPayloadDays` (what the retention job runs); resolves to how many. */
  purgeExpiredPayloads(): Promise<number>;
  /** Resolves once every delivery-log row of the sends so far is written. */
  flushLog(): Promise<void>;
}

/** The providers per channel, fallbacks resolved (console adapters outside production). */
export interface CommsProviders {
  readonly mail: readonly Mailer[];
  readonly sms: readonly SmsSender[];
  readonly push: readonly PushSender[];
  readonly verification: readonly VerificationSender[];
}

interface ServiceDependencies {
  readonly options: CommsAppOptions;
  readonly providers: CommsProviders;
  readonly messages: CommsMessageModel;
  readonly tokens: PushTokenModel;
  readonly logger: SvcLogger;
  /** Where failures of svc's own writes (delivery log, retention) are reported besides the log. */
  readonly errorTracker?: ErrorTracker;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** How long the plugin's stop waits for sends still talking to a provider (the HTTP server's default grace). */
const SETTLE_WAIT_MS = 10_000;

/** What the plugin needs beyond the public service: the log, and a drain for its stop. */
export interface StoppableCommsService extends CommsService {
  readonly log: DeliveryLog;
  /**
   * Waits (up to `waitMs`) for the calls in flight — a send waiting on its provider has not queued
   * its row yet — then writes every queued row. The plugin's stop runs it before the database closes.
   */
  settle(waitMs?: number): Promise<void>;
}

/**
 * Builds the service the plugin hands out once started.
 *
 * @example
 * const service = createCommsService({ options, providers, messages: commsMessageModel(), tokens: pushTokenModel(), logger });
 */
export function createCommsService(dependencies: ServiceDependencies): StoppableCommsService {
  const { options, providers, messages, tokens, logger } = dependencies;
  const now = options.now ?? (() => new Date());
  const redactRecipients = options.redactRecipients !== false;
  const retainDays = options.retainPayloadDays ?? 30;
  const log = new DeliveryLog(messages, logger, dependencies.errorTracker);
  const notConfigured = () => failedResult(SEND_ERROR_CODES.channelNotConfigured, "config");

  /** Runs `beforeSend`; undefined means cancelled. */
  async function prepare<M extends CommsPayload>(hooks: HookRunner, context: CommsHookContext): Promise<M | undefined> {
    if (!options.beforeSend) return context.message as M;
    const decision = await hooks.run("beforeSend", () => options.beforeSend!(context));
    if (decision && typeof decision === "object") {
      if (decision.cancel === true) return undefined;
      if (decision.message && typeof decision.message === "object") return decision.message as M;
    }
    return context.message as M;
  }

  /** Fires onSend/onError, writes the row, builds the caller's result. */
  async function finish<R extends SendResult>(
    hooks: HookRunner,
    context: CommsHookContext,
    result: R,
    status: CommsStatus,
    row: { attempts: CommsAttempt[]; provider?: string; extra?: Partial<CommsMessageFields>; metadata?: CommsMessageFields["metadata"] },
  ): Promise<R & { messageId: string; status: CommsStatus }> {
    const cancelled = status === "cancelled";
    if (options.onSend) await hooks.run("onSend", () => options.onSend!(context, result));
    if (!result.accepted && !cancelled && options.onError) await hooks.run("onError", () => options.onError!(context, result));
    if (options.logMessages !== false) {
      const payload = storedPayload(hooks, context);
      const metadata = { ...row.metadata };
      if (result.consoleUrl) metadata.consoleUrl = result.consoleUrl;
      const hookErrors = hooks.errors();
      if (hookErrors) metadata.hookErrors = hookErrors;
      const at = now();
      const waiting = log.add({
        _id: new Types.ObjectId(context.messageId),
        channel: context.channel,
        operation: context.operation,
        status,
        ...(result.errorCode !== undefined ? { errorCode: result.errorCode } : {}),
        ...(result.errorClass !== undefined ? { errorClass: result.errorClass } : {}),
        ...(row.provider !== undefined ? { provider: row.provider } : {}),
        ...(result.providerMessageId !== undefined ? { providerMessageId: result.providerMessageId, providerMessageIds: [result.providerMessageId] } : {}),
        recipients: recipientsOf(context.channel, context.message, redactRecipients, context.userId),
        attempts: row.attempts,
        ...(payload !== undefined ? { payload } : {}),
        ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
        events: [],
        created: at,
        updated: at,
        ...row.extra,
      });
      if (waiting) await waiting;
    }
    return { ...result, messageId: context.messageId, status };
  }

  function storedPayload(hooks: HookRunner, context: CommsHookContext): Record<string, unknown> | undefined {
    if (retainDays === 0) return undefined;
    const kept = retainedPayload(context.channel, context.operation, context.message, redactRecipients);
    if (kept === undefined || !options.redactPayload) return kept;
    // A throwing redactPayload stores nothing: what it meant to remove must not be kept by accident.
    try {
      return options.redactPayload(context, kept) ?? undefined;
    } catch (error) {
      void hooks.run("redactPayload", () => {
        throw error;
      });
      return undefined;
    }
  }

  function contextFor(channel: CommsChannel, operation: CommsOperation, message: CommsPayload, userId?: string): CommsHookContext {
    return { channel, operation, messageId: new Types.ObjectId().toHexString(), attempt: 1, isRetry: false, message, ...(userId !== undefined ? { userId } : {}) };
  }

  /** Mail, SMS and verification starts: one message, the provider chain, one row. */
  async function sendThroughChain<P extends { readonly name: string }, M extends CommsPayload>(
    channel: CommsChannel,
    operation: CommsOperation,
    chain: readonly P[],
    input: M,
    call: (provider: P, message: M) => Promise<SendResult>,
    defaults: (message: M) => M = (message) => message,
  ): Promise<CommsSendResult> {
    const initial = contextFor(channel, operation, defaults(input));
    const hooks = new HookRunner(logger, initial.messageId);
    // Defaults again on what beforeSend returns: a replacement is what gets sent and logged.
    const prepared = await prepare<M>(hooks, initial);
    const message = prepared === undefined ? undefined : defaults(prepared);
    if (message === undefined) {
      return finish(hooks, initial, { accepted: false, errorCode: SEND_ERROR_CODES.cancelled, isPermanentFailure: false }, "cancelled", { attempts: [] });
    }
    const context = { ...initial, message };
    const outcome = await runProviderChain(chain, (provider) => call(provider, message), {
      now,
      retry: true,
      onThrow: () => PROVIDER_THROW,
      notConfigured,
      callbacks: {
        beforeRetry: async (attempt, result) => {
          if (options.onRetry) await hooks.run("onRetry", () => options.onRetry!({ ...context, attempt, isRetry: true }, result));
        },
      },
    });
    const last = outcome.attempts.at(-1);
    const finalContext = last ? { ...context, attempt: last.attempt, isRetry: last.isRetry } : context;
    return finish(hooks, finalContext, outcome.result, outcome.result.accepted ? "sent" : "failed", { attempts: outcome.attempts, provider: outcome.provider });
  }

  const inFlight = new Set<Promise<unknown>>();

  function safely<R>(what: string, fallback: () => R, call: () => Promise<R>): Promise<R> {
    const running = guarded(what, fallback, call);
    inFlight.add(running);
    // `guarded` never rejects, so neither does this.
    void running.finally(() => inFlight.delete(running));
    return running;
  }

  async function guarded<R>(what: string, fallback: () => R, call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (error) {
      // Only our own database writes can get here (providers and hooks are guarded).
      logger.error(`Comms ${what} failed: ${error instanceof Error ? error.message : String(error)}`, { stack: error instanceof Error ? error.stack : undefined });
      dependencies.errorTracker?.captureException(error, { tags: { comms: what } });
      return fallback();
    }
  }

  const service: StoppableCommsService = {
    log,
    sendMail(message) {
      const withFrom = (mail: MailMessage): MailMessage => (mail && typeof mail === "object" && mail.from === undefined && options.defaultFrom ? { ...mail, from: options.defaultFrom } : mail);
      return safely("sendMail", () => failure(PROVIDER_THROW), () => sendThroughChain("mail", "send", providers.mail, message, (mailer, mail) => mailer.sendMail(mail), withFrom));
    },
    sendSms(message) {
      return safely("sendSms", () => failure(PROVIDER_THROW), () => sendThroughChain("sms", "send", providers.sms, message, (sender, sms) => sender.sendSms(sms)));
    },
    startVerification(start) {
      return safely("startVerification", () => failure(PROVIDER_THROW), () =>
        sendThroughChain("verification", "start", providers.verification, start, (verifier, message) => verifier.startVerification(message)),
      );
    },
    checkVerification(check) {
      return safely("checkVerification", () => ({ ...failure(PROVIDER_THROW), approved: false }), async () => {
        const context = contextFor("verification", "check", check);
        const hooks = new HookRunner(logger, context.messageId);
        // Never retried (SPEC §7). A provider that does not approve hands over to the next: the
        // start may have fallen back to a later provider, and the earlier one, up again, answers
        // that it knows no such verification. Each provider sees the code once.
        let answered: { result: VerificationCheckResult; provider: string } | undefined;
        const outcome = await runProviderChain<VerificationSender, VerificationCheckResult>(
          providers.verification,
          async (verifier) => {
            const checked = await verifier.checkVerification(check);
            if (checked?.accepted === true && answered === undefined) answered = { result: checked, provider: verifier.name };
            return checked;
          },
          {
            now,
            retry: false,
            onThrow: () => ({ ...PROVIDER_THROW, approved: false }),
            notConfigured: () => ({ ...notConfigured(), approved: false }),
            settles: (checked) => (checked.accepted && checked.approved === true) || checked.errorClass === "permanent",
          },
        );
        // Not approved anywhere: a provider's "no" is the answer, rather than a later one's outage.
        const final = outcome.result.accepted && outcome.result.approved === true ? { result: outcome.result, provider: outcome.provider } : (answered ?? { result: outcome.result, provider: outcome.provider });
        const approved = final.result.accepted && final.result.approved === true;
        const result = { ...final.result, approved };
        return finish(hooks, context, result, result.accepted ? "sent" : "failed", { attempts: outcome.attempts, provider: final.provider, metadata: { approved } });
      });
    },
    sendPushToUser(userId, notification) {
      return safely("sendPushToUser", () => ({ ...failure(PROVIDER_THROW), tokens: [] }), async () => {
        const initial = contextFor("push", "send", notification, typeof userId === "string" ? userId : String(userId));
        const hooks = new HookRunner(logger, initial.messageId);
        const message = await prepare<PushNotification>(hooks, initial);
        const userRow = { userId: redactRecipients ? REDACTED : initial.userId };
        if (message === undefined) {
          return finish(hooks, initial, { accepted: false, errorCode: SEND_ERROR_CODES.cancelled, isPermanentFailure: false, tokens: [] }, "cancelled", { attempts: [], extra: userRow });
        }
        const context = { ...initial, message };
        // The newest maxPushTokensPerUser only: registration keeps no more active, but rows stored
        // before the limit existed (or written by other code) must not widen the fan-out.
        const owned = Types.ObjectId.isValid(initial.userId!)
          ? await tokens
              .find({ ownerId: initial.userId, active: true }, { token: 1, kind: 1 })
              .sort({ lastRegisteredAt: -1, _id: -1 })
              .limit(options.maxPushTokensPerUser ?? 20)
              .lean()
          : [];
        if (owned.length === 0) {
          const result = { ...failedResult(providers.push.length === 0 ? SEND_ERROR_CODES.channelNotConfigured : SEND_ERROR_CODES.noRecipients, providers.push.length === 0 ? "config" : "permanent"), tokens: [] };
          return finish(hooks, context, result, "failed", { attempts: [], extra: userRow });
        }
        const { results, attempts } = await deliverPush(
          providers.push,
          owned.map((row) => ({ token: row.token, kind: row.kind })),
          message,
          {
            now,
            beforeRetry: async (attempt, result) => {
              if (options.onRetry) await hooks.run("onRetry", () => options.onRetry!({ ...context, attempt, isRetry: true }, result));
            },
          },
        );
        const dead = results.filter((result) => !result.accepted && (result.errorClass === "permanent" || result.isPermanentFailure));
        if (dead.length > 0) {
          const at = now();
          await Promise.all(
            dead.map((result) =>
              tokens.updateOne({ token: result.token, active: true }, { $set: { active: false, deactivatedAt: at, deactivationReason: "provider", deactivationCode: result.errorCode ?? "" } }),
            ),
          );
        }
        const accepted = results.filter((result) => result.accepted);
        const firstFailure = results.find((result) => !result.accepted);
        const summary: SendResult =
          accepted.length > 0
            ? { accepted: true, isPermanentFailure: false, ...(accepted[0]!.consoleUrl ? { consoleUrl: accepted[0]!.consoleUrl } : {}) }
            : { accepted: false, errorCode: firstFailure?.errorCode, errorClass: firstFailure?.errorClass, isPermanentFailure: results.every((result) => result.isPermanentFailure) };
        const status: CommsStatus = accepted.length === results.length ? "sent" : accepted.length > 0 ? "partial" : "failed";
        const ids = accepted.map((result) => result.providerMessageId).filter((id): id is string => typeof id === "string");
        const last = attempts.at(-1);
        return finish(hooks, last ? { ...context, attempt: last.attempt, isRetry: last.isRetry } : context, { ...summary, tokens: results }, status, {
          attempts,
          provider: last?.provider,
          extra: { ...userRow, ...(ids.length > 0 ? { providerMessageIds: ids } : {}) },
          metadata: { tokens: { accepted: accepted.length, failed: results.length - accepted.length } },
        });
      });
    },
    recordDeliveryEvent(event) {
      return safely("recordDeliveryEvent", (): { recorded: boolean; failed?: true } => ({ recorded: false, failed: true }), async () => {
        const applied = await applyDeliveryEvent(messages, event, now);
        if (applied && options.onDeliveryEvent) await new HookRunner(logger, applied.messageId).run("onDeliveryEvent", () => options.onDeliveryEvent!(event, applied));
        return { recorded: applied !== undefined };
      });
    },
    recordOptOut(event) {
      return safely("recordOptOut", () => undefined, async () => {
        logger.info("Comms opt-out recorded", { provider: event?.provider, channel: event?.channel, reason: event?.reason });
        if (options.onOptOut) await new HookRunner(logger).run("onOptOut", () => options.onOptOut!(event));
      });
    },
    purgeExpiredPayloads() {
      return safely("payload retention", () => 0, async () => {
        await log.flush();
        const cutoff = new Date(now().getTime() - retainDays * DAY_MS);
        const filter = retainDays === 0 ? { payload: { $exists: true } } : { created: { $lt: cutoff }, payload: { $exists: true } };
        const outcome = await messages.updateMany(filter, { $unset: { payload: 1 } });
        return outcome.modifiedCount;
      });
    },
    flushLog: () => log.flush(),
    async settle(waitMs = SETTLE_WAIT_MS) {
      const running = [...inFlight];
      if (running.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        const gaveUp = await Promise.race([
          Promise.all(running).then(() => false),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), waitMs))),
        ]);
        clearTimeout(timer);
        if (gaveUp) logger.warn(`Comms: ${inFlight.size} call(s) still waiting on a provider or hook after ${waitMs} ms at stop; their delivery-log rows are not written`);
      }
      await log.flush();
    },
  };
  return service;
}

function failure(result: SendResult): CommsSendResult {
  return { ...result, messageId: new Types.ObjectId().toHexString(), status: "failed" };
}
