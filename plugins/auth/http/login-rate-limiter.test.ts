import test from "ava";
import { AuthErrors } from "../errors.js";
import { LoginRateLimiter } from "./login-rate-limiter.js";

async function blocked(t: import("ava").ExecutionContext, work: Promise<unknown>): Promise<void> {
  const error = (await t.throwsAsync(work)) as { code?: string; status?: number; meta?: { retryAfterSeconds?: number } };
  t.is(error.code, AuthErrors.RATE_LIMITED.code);
  t.is(error.status, 429);
  t.true((error.meta?.retryAfterSeconds ?? 0) >= 1);
}

test("an account is blocked after its failure budget, from any IP", async (t) => {
  const limiter = new LoginRateLimiter({ perAccount: { points: 3, durationSeconds: 60 }, perIp: { points: 100, durationSeconds: 60 } });
  for (let i = 0; i < 3; i++) {
    await limiter.assertLoginAllowed("Victim@Example.com", `10.0.0.${i}`);
    await limiter.recordFailure("Victim@Example.com", `10.0.0.${i}`);
  }
  await blocked(t, limiter.assertLoginAllowed("victim@example.com ", "10.9.9.9"));
  await t.notThrowsAsync(limiter.assertLoginAllowed("other@example.com", "10.9.9.9"));
});

test("an IP is blocked after its failure budget, whatever the account", async (t) => {
  const limiter = new LoginRateLimiter({ perAccount: { points: 100, durationSeconds: 60 }, perIp: { points: 3, durationSeconds: 60 } });
  for (let i = 0; i < 3; i++) await limiter.recordFailure(`user${i}@example.com`, "10.0.0.1");
  await blocked(t, limiter.assertLoginAllowed("fresh@example.com", "10.0.0.1"));
  await t.notThrowsAsync(limiter.assertLoginAllowed("fresh@example.com", "10.0.0.2"));
});

test("a success clears the account's failures", async (t) => {
  const limiter = new LoginRateLimiter({ perAccount: { points: 3, durationSeconds: 60 } });
  await limiter.recordFailure("a@example.com", "10.0.0.1");
  await limiter.recordFailure("a@example.com", "10.0.0.1");
  await limiter.recordSuccess("a@example.com");
  await limiter.recordFailure("a@example.com", "10.0.0.1");
  await limiter.recordFailure("a@example.com", "10.0.0.1");
  await t.notThrowsAsync(limiter.assertLoginAllowed("a@example.com", "10.0.0.1"));
});

test("sign-ups per IP are limited", async (t) => {
  const limiter = new LoginRateLimiter({ signupPerIp: { points: 2, durationSeconds: 60 } });
  await limiter.consumeSignup("10.0.0.1");
  await limiter.consumeSignup("10.0.0.1");
  await blocked(t, limiter.consumeSignup("10.0.0.1"));
});
