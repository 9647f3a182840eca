/**
 * Feature-flag benchmark, all measured in the same run:
 * 1. direct evaluation of 50 flags × 3 rules per user (ns per flag; target ≤ 1 µs), against the
 *    same rules hand-written as inline JavaScript;
 * 2. the same evaluations through the OpenFeature client and our provider;
 * 3. `GET /feature-flags/flagConfiguration` against an express route returning the same
 *    precomputed JSON behind the same authentication (target ≥ 0.8×).
 *
 * @example
 * npm run bench -- feature-flags
 */
import { Agent } from "node:http";
import { OpenFeature } from "@openfeature/server-sdk";
import { Types } from "mongoose";
import { AUTHENTICATION_MIDDLEWARE, HTTP_ROUTER } from "../contracts/http.js";
import { SvcApp } from "../hosts/svc-app.js";
import { compileFlag, flagUserId } from "../plugins/feature-flags/evaluate-flag.js";
import { featureFlagModel } from "../plugins/feature-flags/feature-flag-model.js";
import { featureFlagsPlugin } from "../plugins/feature-flags/feature-flags-plugin.js";
import { flagBucketer } from "../plugins/feature-flags/flag-bucket.js";
import { FLAG_CACHE } from "../plugins/feature-flags/flag-cache.js";
import { flagConfigurationFor } from "../plugins/feature-flags/flag-configuration.js";
import type { FlagDefinition } from "../plugins/feature-flags/flag-types.js";
import { TokenMap } from "../test/support/token-map-authentication.js";
import { send, throughput } from "./support/http-load.js";

const FLAGS = 50;
const USERS = 2000;
const DOMAIN = "bench-feature-flags";

/** 50 flags, alternately boolean and variant, each with three rules that rarely match. */
function definitions(): FlagDefinition[] {
  return Array.from({ length: FLAGS }, (_, i) => ({
    key: `bench-flag-${i}`,
    type: i % 2 === 0 ? "boolean" : "variant",
    enabled: true,
    rolloutPercentage: 50,
    variants: i % 2 === 0 ? [] : [{ key: "a", weight: 30 }, { key: "b", weight: 70 }],
    rules: [
      { field: "profile.plan", operator: "eq", value: "enterprise", enabled: true, variant: "a" },
      { field: "age", operator: "gt", value: 99, enabled: true, variant: "b" },
      { field: "country", operator: "in", value: ["XX", "YY", "ZZ"], enabled: false, variant: "a" },
    ],
  }));
}

function users() {
  return Array.from({ length: USERS }, (_, i) => ({
    id: new Types.ObjectId().toHexString(),
    age: 20 + (i % 60),
    country: ["NZ", "AU", "FR"][i % 3]!,
    profile: { plan: i % 10 === 0 ? "pro" : "free" },
  }));
}

/** The three rules of every flag, written by hand: the fastest a careful developer would get. */
function handWritten(flag: FlagDefinition & { bucketOf: (id: string) => number }, user: ReturnType<typeof users>[number]): boolean | string {
  const variant = flag.type === "variant";
  if (user.profile?.plan === "enterprise") return variant ? "a" : true;
  if (typeof user.age === "number" && user.age > 99) return variant ? "b" : true;
  if (user.country === "XX" || user.country === "YY" || user.country === "ZZ") return variant ? "a" : false;
  const bucket = flag.bucketOf(user.id);
  return variant ? (bucket < 30 ? "a" : "b") : bucket < 50;
}

function nsPerFlag(rounds: number, body: () => void): number {
  body(); // warm up
  const started = process.hrtime.bigint();
  for (let round = 0; round < rounds; round++) body();
  return Number(process.hrtime.bigint() - started) / (rounds * FLAGS * USERS);
}

export default async function benchFeatureFlags(): Promise<void> {
  const defs = definitions();
  const people = users();
  const compiled = defs.map((definition) => compileFlag(definition));
  let sink = 0;

  // 1. Direct evaluation vs hand-written rules.
  const direct = nsPerFlag(5, () => {
    for (const user of people) {
      const id = flagUserId(user);
      for (const flag of compiled) if (flag.evaluate(user, id).value) sink++;
    }
  });
  const prepared = defs.map((definition) => ({ ...definition, bucketOf: flagBucketer(definition.key) }));
  const baseline = nsPerFlag(5, () => {
    for (const user of people) for (const flag of prepared) if (handWritten(flag, user)) sink++;
  });
  console.log(`  ${FLAGS} flags × 3 rules, ${USERS} users`);
  console.log(
    `  direct evaluation   ${direct.toFixed(0).padStart(5)} ns/flag   hand-written ${baseline.toFixed(0).padStart(5)} ns/flag` +
      `   ratio ${(baseline / direct).toFixed(2)} (target ≤ 1000 ns/flag: ${direct <= 1000 ? "met" : "MISSED"})`,
  );

  // 2 and 3 need the plugin on a database.
  const tokens = new TokenMap();
  const { token, user } = tokens.user("bench", { age: 30, country: "NZ", profile: { plan: "free" } });
  const precomputed: { json?: string } = {};
  const flags = featureFlagsPlugin({ openFeatureDomain: DOMAIN, changeDetection: "poll", pollIntervalMs: 3_600_000 });
  const app = new SvcApp({ env: { NODE_ENV: "test", DISABLE_LOG_ALL_REQUESTS: "true", FEATURE_FLAGS_DEBUG: "false" }, port: 0, handleSignals: false })
    .register(flags)
    .register({
      name: "bench-precomputed",
      start(ctx) {
        ctx.resolve(HTTP_ROUTER).get("/precomputed", (_req, res) => {
          res.type("application/json").send(precomputed.json);
        });
      },
    })
    .override(AUTHENTICATION_MIDDLEWARE, { useValue: tokens.middleware() });
  const server = await app.start();
  const Flag = featureFlagModel();
  await Flag.deleteMany({ key: /^bench-flag-/ });
  await Flag.insertMany(defs.map((definition) => ({ ...definition, name: definition.key })));
  await app.kernel.container.resolve(FLAG_CACHE).reload();
  try {
    // 2. Through OpenFeature.
    const client = OpenFeature.getClient(DOMAIN);
    const sample = people.slice(0, 200);
    const evaluateAll = async () => {
      for (const person of sample) {
        const context = { targetingKey: person.id, ...person };
        for (const definition of defs) {
          const value = definition.type === "boolean"
            ? await client.getBooleanValue(definition.key, false, context)
            : await client.getStringValue(definition.key, "none", context);
          if (value) sink++;
        }
      }
    };
    await evaluateAll();
    const started = process.hrtime.bigint();
    for (let round = 0; round < 3; round++) await evaluateAll();
    const viaProvider = Number(process.hrtime.bigint() - started) / (3 * FLAGS * sample.length);
    console.log(`  via OpenFeature     ${viaProvider.toFixed(0).padStart(5)} ns/flag   ratio to direct ${(viaProvider / direct).toFixed(1)}×`);

    // 3. The configuration endpoint vs a route returning precomputed JSON.
    precomputed.json = JSON.stringify({ data: flagConfigurationFor(compiled, user) });
    const target = { port: server.port, agent: new Agent({ keepAlive: true, maxSockets: 8 }), auth: `Bearer ${token}` };
    const count = 3000;
    await throughput(300, 8, () => send(target, "GET", "/feature-flags/flagConfiguration"), 200);
    await throughput(300, 8, () => send(target, "GET", "/precomputed"), 200);
    let framework = 0;
    let hand = 0;
    for (let round = 0; round < 3; round++) {
      hand += await throughput(count, 8, () => send(target, "GET", "/precomputed"), 200);
      framework += await throughput(count, 8, () => send(target, "GET", "/feature-flags/flagConfiguration"), 200);
    }
    const ratio = framework / hand;
    console.log(
      `  flagConfiguration   ${(framework / 3).toFixed(0).padStart(5)} req/s   precomputed ${(hand / 3).toFixed(0).padStart(5)} req/s` +
        `   ratio ${ratio.toFixed(2)} (target ≥ 0.8: ${ratio >= 0.8 ? "met" : "MISSED"})`,
    );
    target.agent.destroy();
  } finally {
    await Flag.deleteMany({ key: /^bench-flag-/ });
    await app.stop();
  }
  if (sink === -1) console.log("unreachable");
}
