import test from "ava";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { compileFlag } from "./evaluate-flag.js";
import murmurhash from "murmurhash";
import { flagBucket, flagBucketer } from "./flag-bucket.js";

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

/** Deterministic, ObjectId-like user ids. */
function userIds(count: number): string[] {
  return Array.from({ length: count }, (_, i) => createHash("sha1").update(`user-${i}`).digest("hex").slice(0, 24));
}

test("buckets are pinned: MurmurHash3 x86 32-bit, seed 0, of flagKey:userId, mod 100", (t) => {
  // Reference values of MurmurHash3_x86_32 (seed 0): "hello" → 613153351, "flag:user-1" → 550893901.
  t.is(flagBucket("flag", "user-1"), 550893901 % 100);
  t.is(flagBucket("new-checkout", "日本"), flagBucket("new-checkout", "日本"));
  for (const id of userIds(1000)) {
    const bucket = flagBucket("any-flag", id);
    t.true(Number.isInteger(bucket) && bucket >= 0 && bucket <= 99);
  }
});

test("buckets are identical in another process", async (t) => {
  const ids = userIds(200);
  const script = `import { flagBucket } from ${JSON.stringify(path.join(here, "flag-bucket.ts"))};
const ids = JSON.parse(process.argv[1]);
console.log(JSON.stringify(ids.map((id) => flagBucket("checkout-v2", id))));`;
  const { stdout } = await run(process.execPath, ["--import=tsx", "--input-type=module", "-e", script, JSON.stringify(ids)]);
  t.deepEqual(JSON.parse(stdout), ids.map((id) => flagBucket("checkout-v2", id)));
});

test("over 100k user ids the buckets are uniform (chi-square, p > 0.001)", (t) => {
  const counts = new Array<number>(100).fill(0);
  const ids = userIds(100_000);
  for (const id of ids) counts[flagBucket("uniformity", id)]! += 1;
  const expected = ids.length / 100;
  const chiSquare = counts.reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0);
  // Critical value of chi-square with 99 degrees of freedom at p = 0.001.
  t.true(chiSquare < 148.23, `chi-square ${chiSquare.toFixed(1)} ≥ 148.23`);
});

test("raising rolloutPercentage never turns a user off", (t) => {
  const ids = userIds(5000);
  const dropped: string[] = [];
  let previous = new Set<string>();
  for (let percentage = 0; percentage <= 100; percentage += 1) {
    const flag = compileFlag({ key: "gradual", type: "boolean", enabled: true, rolloutPercentage: percentage });
    const on = new Set(ids.filter((id) => flag.evaluate({ id }, id).value === true));
    for (const id of previous) if (!on.has(id)) dropped.push(`${id}@${percentage}%`);
    previous = on;
  }
  t.deepEqual(dropped, []);
  t.is(previous.size, ids.length); // 100 % is everyone
});

test("the prepared bucketer agrees with the library on the whole string, for ASCII and non-ASCII ids", (t) => {
  const keys = ["a", "new-checkout", "ключ", "旗"];
  const ids = [...userIds(200), "", "é", "日本語", "👩‍💻", "x".repeat(400)];
  const mismatches: string[] = [];
  for (const key of keys) {
    const bucketOf = flagBucketer(key);
    // Interleave users so the last-user memo is exercised both ways.
    for (const id of [...ids, ...ids.reverse()]) {
      if (bucketOf(id) !== murmurhash.v3(`${key}:${id}`, 0) % 100) mismatches.push(`${key}:${id}`);
    }
  }
  t.deepEqual(mismatches, []);
});
