// Redis for apps that run as several instances (`CACHE_URL`): shared throttles and login limits, socket.io across instances.
export { redisPlugin } from "./redis-plugin.js";
export { redisThrottleStore } from "./redis-throttle-store.js";
export { RedisErrors } from "./errors.js";
