import { defineErrors } from "../../kernel/errors.js";

/**
 * Start-up mistakes in throttle settings (a request over its budget is `HTTP_RATE_LIMITED`).
 *
 * @example
 * ThrottleErrors.INVALID_RATE("Todo (/todos) throttle.create", "30/fortnight").code; // "THROTTLE_INVALID_RATE"
 */
export const ThrottleErrors = defineErrors("THROTTLE", {
  INVALID_RATE: {
    message: (where: string, rate: unknown) =>
      `${where}: ${JSON.stringify(rate)} is not a rate; write "<count>/<period>" with a whole count of at least 1, ` +
      `e.g. "30/minute", "100/15m", "5/10s", "1000/day" (periods: s, m, h, d or second, minute, hour, day)`,
  },
});
