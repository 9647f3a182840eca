// Idempotency-Key: retry-safe POSTs, for modelRouter creates and hand-written routes.
export { idempotent, idempotencyRules, checkIdempotencyOption, type IdempotencyOptions } from "./idempotency-middleware.js";
export { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH, readIdempotencyKey } from "./idempotency-key.js";
export { idempotencyKeyModel, type IdempotencyKeyFields, type StoredResponse } from "./idempotency-key-model.js";
export { IdempotencyErrors } from "./errors.js";
export { documentIdempotency } from "./openapi.js";
