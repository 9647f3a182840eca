// The key bookkeeping's races and clock rules, on the test database with a clock the test moves.
import test from "ava";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { IdempotencyErrors } from "./errors.js";
import { idempotencyKeyModel } from "./idempotency-key-model.js";
import { IdempotencyKeys, type Replay, type RunningClaim } from "./idempotency-keys.js";

const MINUTE = 60_000;
let clock = Date.now();
const keys = new IdempotencyKeys(idempotencyKeyModel(), { keepMs: 60 * MINUTE, lockMs: MINUTE, now: () => clock });

test.before(async (t) => {
  const app = await createTestApp();
  await app.build();
  t.context = app;
  await idempotencyKeyModel().init();
});
test.after.always(async (t) => {
  await (t.context as { stop(): Promise<void> }).stop();
  await stopTestDatabase();
});

const running = (claim: RunningClaim | Replay) => {
  if (claim.kind !== "run") throw new Error("expected to run");
  return claim;
};
const created = { status: 201, body: Buffer.from('{"data":{"id":"1"}}'), contentType: "application/json; charset=utf-8", location: "/orders/1" };

test.serial("a claim holds the key until answered; then its answer replays, byte for byte", async (t) => {
  const first = running(await keys.claim("user:a", "k1", "fp"));
  const busy = await t.throwsAsync(keys.claim("user:a", "k1", "fp"));
  t.is((busy as { code?: string }).code, IdempotencyErrors.IN_PROGRESS.code);
  t.deepEqual((busy as { meta?: unknown }).meta, { retryAfterSeconds: 1 });
  // Another request is refused whatever the key's state.
  t.is(((await t.throwsAsync(keys.claim("user:a", "k1", "other"))) as { code?: string }).code, IdempotencyErrors.KEY_REUSED.code);

  await first.complete(created);
  const replay = await keys.claim("user:a", "k1", "fp");
  t.is(replay.kind, "replay");
  t.deepEqual((replay as Replay).response, { ...created, etag: undefined });
  t.true(Buffer.isBuffer((replay as Replay).response.body));
});

test.serial("a claim whose request died lapses with its lock: the next retry runs, and the old claim can no longer answer", async (t) => {
  const dead = running(await keys.claim("user:b", "k2", "fp"));
  clock += MINUTE + 1;
  const retry = running(await keys.claim("user:b", "k2", "fp"));
  // The first request wakes up late: its answer and its release touch nothing of the new claim's.
  await dead.complete({ status: 500 });
  await dead.release();
  t.is(((await t.throwsAsync(keys.claim("user:b", "k2", "fp"))) as { code?: string }).code, IdempotencyErrors.IN_PROGRESS.code);
  await retry.complete(created);
  t.is((await keys.claim("user:b", "k2", "fp")).kind, "replay");
});

test.serial("a released key is free for the same request; an expired one for any request", async (t) => {
  const refused = running(await keys.claim("user:c", "k3", "fp"));
  await refused.release();
  await running(await keys.claim("user:c", "k3", "fp")).complete(created);
  t.is((await keys.claim("user:c", "k3", "fp")).kind, "replay");

  // Past expiry (before MongoDB's TTL monitor removes the row) the key starts afresh.
  clock += 60 * MINUTE + 1;
  const fresh = running(await keys.claim("user:c", "k3", "another request"));
  await fresh.complete({ status: 204 });
  const replay = (await keys.claim("user:c", "k3", "another request")) as Replay;
  t.deepEqual(replay.response, { status: 204, body: undefined, contentType: undefined, location: undefined, etag: undefined });
});

test.serial("concurrent claims of one key: exactly one runs", async (t) => {
  const outcomes = await Promise.allSettled(Array.from({ length: 16 }, () => keys.claim("user:d", "k4", "fp")));
  t.is(outcomes.filter((outcome) => outcome.status === "fulfilled" && outcome.value.kind === "run").length, 1);
  for (const outcome of outcomes) {
    if (outcome.status === "rejected") t.is((outcome.reason as { code?: string }).code, IdempotencyErrors.IN_PROGRESS.code);
  }
  t.is(await idempotencyKeyModel().countDocuments({ scope: "user:d" }), 1);
});
