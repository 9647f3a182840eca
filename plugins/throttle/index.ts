// Request throttling: shared by modelRouter's `throttle` option, sync mutations and hand-written routes.
export { parseRate, parseThrottleRate, type ParsedRate, type Rate, type ThrottleRate } from "./rate.js";
export { Throttle, type ThrottleCaller } from "./throttle.js";
export { memoryThrottleStore, throttleStoreOf } from "./throttle-store.js";
export { throttle } from "./throttle-middleware.js";
export { ThrottleErrors } from "./errors.js";
export { clientAddressKey, IPV6_PREFIX_BITS } from "./client-address.js";
