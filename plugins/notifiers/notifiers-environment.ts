import { readEnvironment, str, urlMap, type Environment } from "../../kernel/environment.js";

/** The chat services with a notifier, and the variable holding each one's named webhooks. */
export const CHAT_WEBHOOK_VARIABLES = {
  slack: "SLACK_WEBHOOKS",
  googleChat: "GOOGLE_CHAT_WEBHOOKS",
  zoom: "ZOOM_WEBHOOKS",
} as const;

export type ChatService = keyof typeof CHAT_WEBHOOK_VARIABLES;

/** The notifiers' variables, parsed and checked. */
export interface NotifiersEnvironment {
  /** Webhook URLs by name, per service (`SLACK_WEBHOOKS`, `GOOGLE_CHAT_WEBHOOKS`, `ZOOM_WEBHOOKS`). */
  readonly webhooks: Readonly<Record<ChatService, Readonly<Record<string, string>>>>;
  /** `WEBHOOK_SECRET`, the key incoming webhooks are verified with; undefined when unset or empty. */
  readonly webhookSecret?: string;
}

/**
 * Reads the notifiers' variables from an environment map. A webhook map that is not a JSON
 * object of http(s) URLs throws `CONFIG_INVALID_ENVIRONMENT` naming the variable; the notifiers
 * plugin calls this in `register()`, so a bad value fails the app's start.
 *
 * @example
 * readNotifiersEnvironment({ SLACK_WEBHOOKS: '{"alerts":"https://hooks.slack.com/services/T/B/X"}' }).webhooks.slack.alerts;
 */
export function readNotifiersEnvironment(environment: Environment): NotifiersEnvironment {
  const env = readEnvironment(environment, {
    SLACK_WEBHOOKS: urlMap({ default: {} }),
    GOOGLE_CHAT_WEBHOOKS: urlMap({ default: {} }),
    ZOOM_WEBHOOKS: urlMap({ default: {} }),
    WEBHOOK_SECRET: str({ default: "" }),
  });
  return {
    webhooks: { slack: env.SLACK_WEBHOOKS, googleChat: env.GOOGLE_CHAT_WEBHOOKS, zoom: env.ZOOM_WEBHOOKS },
    webhookSecret: env.WEBHOOK_SECRET || undefined,
  };
}

// Outside an app nothing hands the notifiers an environment: they read `process.env`, once.
let fromProcess: NotifiersEnvironment | undefined;

/**
 * The notifiers' variables from `environment` when one is given (an app passes `ctx.config.env`),
 * else from `process.env`, read once per process. This module is the only place the notifiers
 * read `process.env`.
 */
export function notifiersEnvironment(environment?: Environment): NotifiersEnvironment {
  if (environment) return readNotifiersEnvironment(environment);
  fromProcess ??= readNotifiersEnvironment(process.env);
  return fromProcess;
}
