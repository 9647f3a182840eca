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
  for (let i = 0; i < 3; i++) await limiter.consumeLoginAttempt("Victim@Example.com", `10.0.0.${i}`);
  await blocked(t, limiter.consumeLoginAttempt("victim@example.com ", "10.9.9.9"));
  await t.notThrowsAsync(limiter.consumeLoginAttempt("other@example.com", "10.9.9.9"));
});

test("an IP is blocked after its failure budget, whatever the account", async (t) => {
  const limiter = new LoginRateLimiter({ perAccount: { points: 100, durationSeconds: 60 }, perIp: { points: 3, durationSeconds: 60 } });
  for (let i = 0; i < 3; i++) await limiter.consumeLoginAttempt(`user${i}@example.com`, "10.0.0.1");
  await blocked(t, limiter.consumeLoginAttempt("fresh@example.com", "10.0.0.1"));
  await t.notThrowsAsync(limiter.consumeLoginAttempt("fresh@example.com", "10.0.0.2"));
});

test("parallel attempts each spend a point before any is checked: at most the budget get through", async (t) => {
  const limiter = new LoginRateLimiter({ perAccount: { points: 3, durationSeconds: 60 }, perIp: { points: 100, durationSeconds: 60 } });
  const results = await Promise.allSettled(Array.from({ length: 20 }, () => limiter.consumeLoginAttempt("a@example.com", "10.0.0.1")));
  t.is(results.filter((result) => result.status === "fulfilled").length, 3);
  for (const result of results) if (result.status === "rejected") t.is((result.reason as { code?: string }).code, AuthErrors.RATE_LIMITED.code);
});

test("a refused attempt costs nothing of the budget that still had room", async (t) => {
  const limiter = new LoginRateLimiter({ perAccount: { points: 1, durationSeconds: 60 }, perIp: { points: 2, durationSeconds: 60 } });
  await limiter.consumeLoginAttempt("a@example.com", "10.0.0.1");
  for (let i = 0; i < 5; i++) await blocked(t, limiter.consumeLoginAttempt("a@example.com", "10.0.0.1"));
  // The IP spent one point (the checked attempt), not six.
  await t.notThrowsAsync(limiter.consumeLoginAttempt("b@example.com", "10.0.0.1"));
});

test("a success clears the account's failures and returns the IP's point; a release returns both", async (t) => {
  const limiter = new LoginRateLimiter({ perAccount: { points: 3, durationSeconds: 60 }, perIp: { points: 4, durationSeconds: 60 } });
  await limiter.consumeLoginAttempt("a@example.com", "10.0.0.1");
  await limiter.consumeLoginAttempt("a@example.com", "10.0.0.1");
  await limiter.consumeLoginAttempt("a@example.com", "10.0.0.1");
  await limiter.recordSuccess("a@example.com", "10.0.0.1");
  // Account: cleared (3 more); IP: 2 failures kept, the success's point back (2 more).
  await limiter.consumeLoginAttempt("a@example.com", "10.0.0.1");
  await limiter.releaseLoginAttempt("a@example.com", "10.0.0.1");
  await limiter.consumeLoginAttempt("a@example.com", "10.0.0.1");
  await limiter.consumeLoginAttempt("a@example.com", "10.0.0.1");
  await blocked(t, limiter.consumeLoginAttempt("a@example.com", "10.0.0.1"));
});

test("sign-ups per IP are limited", async (t) => {
  const limiter = new LoginRateLimiter({ signupPerIp: { points: 2, durationSeconds: 60 } });
  await limiter.consumeSignup("10.0.0.1");
  await limiter.consumeSignup("10.0.0.1");
  await blocked(t, limiter.consumeSignup("10.0.0.1"));
});

test("an IPv6 client is counted by its /56, so rotating addresses in it buys no budget; an IPv4-mapped address is its IPv4 one", async (t) => {
  const limiter = new LoginRateLimiter({ perAccount: { points: 100, durationSeconds: 60 }, perIp: { points: 3, durationSeconds: 60 } });
  for (const address of ["2001:db8:1:200::1", "2001:db8:1:2aa::2", "2001:db8:1:2ff:ffff::3"]) await limiter.consumeLoginAttempt(`${address}@example.com`, address);
  await blocked(t, limiter.consumeLoginAttempt("fresh@example.com", "2001:db8:1:2bb::4"));
  await t.notThrowsAsync(limiter.consumeLoginAttempt("fresh@example.com", "2001:db8:1:300::1"));

  const signups = new LoginRateLimiter({ signupPerIp: { points: 1, durationSeconds: 60 } });
  await signups.consumeSignup("203.0.113.7");
  await blocked(t, signups.consumeSignup("::ffff:203.0.113.7"));
});
