import { defineErrors } from "../../kernel/errors.js";

/**
 * Set-up mistakes of the push adapters, thrown when one is constructed.
 *
 * @example
 * new WebPushSender({ env: {} }); // throws PUSH_ADAPTER_VAPID_REQUIRED
 */
export const PushAdapterErrors = defineErrors("PUSH_ADAPTER", {
  /** Web Push needs VAPID keys and a subject (`vapid` or `WEB_PUSH_VAPID_*`). */
  VAPID_REQUIRED: {
    message: (problem: string) => `The Web Push adapter needs VAPID details (vapid option or WEB_PUSH_VAPID_PUBLIC_KEY, WEB_PUSH_VAPID_PRIVATE_KEY, WEB_PUSH_VAPID_SUBJECT): ${problem}`,
  },
});
