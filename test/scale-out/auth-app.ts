// The app of the auth scale-out tests, as docs/auth.md tells a scaled-out app to set it up: the
// per-account login limit counted in the database (RateLimiterMongo on the app's connection),
// so every process spends one budget. The per-IP limit keeps the default in-memory counter, to
// show that it is per process. TRUST_PROXY=loopback lets tests pick the client address.
import mongoose from "mongoose";
import { RateLimiterMongo } from "rate-limiter-flexible";
import { authTestApp } from "../support/auth-test-app.js";

/** Failed logins per account, across processes. */
export const ACCOUNT_POINTS = 4;
/** Failed logins per client address, in each process. */
export const IP_POINTS = 3;

export async function scaleOutAuthApp(t: { teardown: (fn: () => Promise<void> | void) => void }, database?: { uri: string; dbName: string }) {
  const perAccount = new RateLimiterMongo({ storeClient: mongoose.connection, keyPrefix: "login_fails_by_account", points: ACCOUNT_POINTS, duration: 15 * 60 });
  const built = await authTestApp(
    t,
    { rateLimits: { perIp: { points: IP_POINTS, durationSeconds: 15 * 60 } }, rateLimiterStores: { perAccount } },
    { TRUST_PROXY: "loopback" },
    undefined,
    { port: 0, host: "127.0.0.1", ...(database ? { database } : {}) },
  );
  const running = await built.app.start();
  return { ...built, url: running.url };
}
