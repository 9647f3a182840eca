import { readEnvironment, str, type Environment } from "../../kernel/environment.js";

/** The comms plugin's variables, parsed and checked. */
export interface CommsEnvironment {
  /** `COMMS_RETENTION_CRON`, default `17 3 * * *` (daily at 03:17): when expired payloads are unset. */
  readonly retentionSchedule: string;
}

/**
 * Reads the comms plugin's own variables (provider adapters read theirs, e.g.
 * `MAIL_ADAPTER_API_KEY`, when they are constructed).
 *
 * @example
 * readCommsEnvironment(ctx.config.env).retentionSchedule; // "17 3 * * *"
 */
export function readCommsEnvironment(environment: Environment): CommsEnvironment {
  const env = readEnvironment(environment, { COMMS_RETENTION_CRON: str({ default: "17 3 * * *" }) });
  return { retentionSchedule: env.COMMS_RETENTION_CRON };
}
