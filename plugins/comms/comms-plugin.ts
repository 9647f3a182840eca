import { ConsoleMailer } from "../../adapters/mail/console.js";
import { ConsolePushSender } from "../../adapters/push/console.js";
import { ConsoleSmsSender } from "../../adapters/sms/console.js";
import { ConsoleVerificationSender } from "../../adapters/verification/console.js";
import type { DeliveryWebhook } from "../../contracts/delivery-webhook.js";
import { ERROR_TRACKER } from "../../contracts/error-tracker.js";
import { HTTP_ROUTER } from "../../contracts/http.js";
import { MAILERS } from "../../contracts/mailer.js";
import { PUSH_SENDERS } from "../../contracts/push.js";
import { SMS_SENDERS } from "../../contracts/sms.js";
import { VERIFICATION_SENDERS } from "../../contracts/verification.js";
import { token } from "../../kernel/container.js";
import { ConfigErrors, type Environment } from "../../kernel/environment.js";
import type { PluginContext, SvcPlugin } from "../../kernel/plugin.js";
import { startedService } from "../../kernel/started-service.js";
import { cronExpressionProblem, cronjob, ScriptErrors, type CronjobHandle } from "../scripts/index.js";
import { readCommsEnvironment } from "./comms-environment.js";
import { commsMessageModel } from "./comms-message-model.js";
import type { CommsAppOptions } from "./comms-options.js";
import { createCommsService, type CommsProviders, type CommsService } from "./comms-service.js";
import { CommsErrors } from "./errors.js";
import { messageLogRouter } from "./message-log-router.js";
import { documentCommsRoutes } from "./openapi.js";
import { pushTokenModel } from "./push-token-model.js";
import { mountPushTokenWrites, pushTokenReadRouter } from "./push-token-routes.js";
import { webhookReceiptModel } from "./webhook-receipt-model.js";
import { mountWebhookRoutes } from "./webhook-routes.js";

/** The started comms service, for other plugins' `start()` or per request. */
export const COMMS_SERVICE = token<CommsService>("comms.Service");

/** The comms plugin: an `SvcPlugin` that also hands out its service once the app started. */
export interface CommsPlugin extends SvcPlugin {
  /** The service; throws `COMMS_NOT_STARTED` before the app started or after it stopped. */
  getCommsService(): CommsService;
}

const CHANNELS = ["mail", "sms", "push", "verification"] as const;

/**
 * Provider-agnostic mail, SMS, push and verification with a delivery log (SPEC §2.7, §4.5, §6.3).
 * Each channel takes one provider or an ordered fallback list; outside production a channel
 * without one uses its console adapter (with a warning), in production it answers
 * `channel-not-configured` (and its routes 501). Mounts the push-token routes, the admin
 * delivery log, one delivery webhook per provider that has one, and schedules payload retention.
 *
 * @example
 * const comms = commsPlugin({ mail: new SendGridMailer({ fromEmail: "team@example.com" }), retainPayloadDays: 7 });
 * const app = new SvcApp().register(authPlugin({ userModel: User })).register(comms);
 * await app.start();
 * await comms.getCommsService().sendMail({ to: "ada@example.com", subject: "Welcome", text: "Hello Ada" });
 */
export function commsPlugin(options: CommsAppOptions = {}): CommsPlugin {
  const basePath = options.basePath ?? "/comms";
  if (!/^\/\S*[^/]$/.test(basePath)) throw CommsErrors.INVALID_BASE_PATH(basePath);
  const retain = options.retainPayloadDays ?? 30;
  if (!Number.isInteger(retain) || retain < 0) throw CommsErrors.INVALID_RETENTION(options.retainPayloadDays);
  const maxTokensPerUser = options.maxPushTokensPerUser ?? 20;
  if (!Number.isInteger(maxTokensPerUser) || maxTokensPerUser < 1) throw CommsErrors.INVALID_TOKEN_LIMIT(options.maxPushTokensPerUser);
  if (options.retentionSchedule !== undefined) {
    const problem = cronExpressionProblem(options.retentionSchedule);
    if (problem !== undefined) throw ScriptErrors.INVALID_CRON_EXPRESSION(options.retentionSchedule, problem);
  }
  const now = options.now ?? (() => new Date());
  const messages = commsMessageModel();
  const tokens = pushTokenModel();
  const tokenReads = pushTokenReadRouter(basePath, tokens);
  const messageLog = messageLogRouter(basePath, messages);

  let retentionSchedule: string | undefined;
  let service: ReturnType<typeof createCommsService> | undefined;
  let retention: CronjobHandle | undefined;

  return {
    name: "comms",
    dependsOn: ["database"],
    getCommsService() {
      if (!service) throw CommsErrors.NOT_STARTED();
      return service;
    },
    register(ctx: PluginContext) {
      // Read here, not in start: a bad schedule fails the app before the database opens.
      retentionSchedule = options.retentionSchedule ?? retentionScheduleFromEnvironment(ctx.config.env);
      const providers = resolveProviders(options, ctx);
      ctx.container.bind(MAILERS, { useValue: providers.mail });
      ctx.container.bind(SMS_SENDERS, { useValue: providers.sms });
      ctx.container.bind(PUSH_SENDERS, { useValue: providers.push });
      ctx.container.bind(VERIFICATION_SENDERS, { useValue: providers.verification });
      ctx.container.bind(COMMS_SERVICE, startedService(() => service, CommsErrors.NOT_STARTED));
      tokenReads.register?.(ctx);
      messageLog.register?.(ctx);
    },
    async start(ctx: PluginContext) {
      const receipts = webhookReceiptModel();
      await Promise.all([messages.init(), tokens.init(), receipts.init()]);
      // Read back from the container, not kept from register(): `app.override(MAILERS, ...)` wins.
      const providers: CommsProviders = {
        mail: ctx.resolve(MAILERS),
        sms: ctx.resolve(SMS_SENDERS),
        push: ctx.resolve(PUSH_SENDERS),
        verification: ctx.resolve(VERIFICATION_SENDERS),
      };
      const started = createCommsService({ options, providers, messages, tokens, logger: ctx.logger, errorTracker: ctx.resolve(ERROR_TRACKER) });
      const router = ctx.resolve(HTTP_ROUTER);
      // The writes first: the read router answers POST and DELETE on the same paths with 403.
      mountPushTokenWrites(router, {
        basePath,
        model: tokens,
        now,
        requireChannel: () => {
          if (providers.push.length === 0) throw CommsErrors.CHANNEL_NOT_CONFIGURED({ detail: "This app has no push provider" });
        },
        senders: providers.push,
        maxTokensPerUser,
      });
      const webhooks = deliveryWebhooks([...providers.mail, ...providers.sms]);
      const providerNames = new Set([...providers.mail, ...providers.sms].map((provider) => provider.name));
      mountWebhookRoutes(router, { basePath, webhooks, service: () => started, receipts, now, providerNames, logger: ctx.logger });
      documentCommsRoutes(ctx.openapi, basePath, webhooks);
      await tokenReads.start?.(ctx);
      await messageLog.start?.(ctx);
      // One process of a scaled-out app purges; the others would only repeat its update.
      retention = cronjob(retentionSchedule!, () => started.purgeExpiredPayloads(), { name: "comms-payload-retention", context: ctx, exclusive: true });
      service = started;
    },
    async stop(ctx: PluginContext) {
      const stopping = service;
      service = undefined;
      await retention?.stop();
      retention = undefined;
      // Sends still waiting on a provider queue their rows after this point: settle waits for them.
      await stopping?.settle();
      await messageLog.stop?.(ctx);
      await tokenReads.stop?.(ctx);
    },
  };
}

/** `COMMS_RETENTION_CRON`; a value that is not a schedule is `CONFIG_INVALID_ENVIRONMENT` naming it. */
function retentionScheduleFromEnvironment(env: Environment): string {
  const schedule = readCommsEnvironment(env).retentionSchedule;
  const problem = cronExpressionProblem(schedule);
  if (problem !== undefined) {
    throw ConfigErrors.INVALID_ENVIRONMENT(`  COMMS_RETENTION_CRON: must be a five-field cron expression such as "17 3 * * *", got "${schedule}": ${problem}`);
  }
  return schedule;
}

/** Lists per channel; outside production an empty channel gets its console adapter. */
function resolveProviders(options: CommsAppOptions, ctx: PluginContext): CommsProviders {
  const list = <P>(value: P | readonly P[] | undefined): readonly P[] => (value === undefined ? [] : Array.isArray(value) ? [...(value as readonly P[])] : [value as P]);
  const given = { mail: list(options.mail), sms: list(options.sms), push: list(options.push), verification: list(options.verification) };
  const consoles = {
    mail: () => new ConsoleMailer({ logger: ctx.logger }),
    sms: () => new ConsoleSmsSender({ logger: ctx.logger }),
    push: () => new ConsolePushSender({ logger: ctx.logger }),
    verification: () => new ConsoleVerificationSender({ logger: ctx.logger }),
  };
  const resolved: Record<(typeof CHANNELS)[number], readonly { readonly name: string }[]> = { ...given };
  for (const channel of CHANNELS) {
    const names = new Set<string>();
    for (const provider of given[channel]) {
      if (names.has(provider.name)) throw CommsErrors.DUPLICATE_PROVIDER(channel, provider.name);
      names.add(provider.name);
    }
    if (given[channel].length > 0 || ctx.config.isProduction) continue;
    ctx.logger.warn(`Comms channel ${channel} has no provider: using the console adapter (messages are logged, not sent)`, { channel });
    resolved[channel] = [consoles[channel]()];
  }
  return resolved as unknown as CommsProviders;
}

/** The providers' delivery webhooks, one route each: two with one name would share it. */
function deliveryWebhooks(providers: readonly { readonly name: string; readonly webhook?: DeliveryWebhook }[]): DeliveryWebhook[] {
  const owners = new Map<string, string>();
  const webhooks: DeliveryWebhook[] = [];
  for (const { name, webhook } of providers) {
    if (!webhook) continue;
    const owner = owners.get(webhook.provider);
    if (owner !== undefined) throw CommsErrors.DUPLICATE_WEBHOOK(webhook.provider, owner, name);
    owners.set(webhook.provider, name);
    webhooks.push(webhook);
  }
  return webhooks;
}
