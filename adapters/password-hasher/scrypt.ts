import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import type { PasswordHasher } from "../../contracts/password-hasher.js";

/** scrypt's tuning knobs; the defaults suit production. */
export interface ScryptParameters {
  /** CPU/memory cost, a power of two. Default 2^15 (32 MiB with r=8). */
  cost?: number;
  blockSize?: number;
  parallelization?: number;
  keyLength?: number;
  saltLength?: number;
}

const PREFIX = "scrypt";

/**
 * The `PASSWORD_HASHER` adapter the auth plugin binds: scrypt from `node:crypto` (memory-hard;
 * no native add-on to build). Defaults meet OWASP's minimum for scrypt in its 32 MiB form
 * (N=2^15, r=8, p=3, equivalent to its N=2^17, r=8, p=1 at a quarter of the memory per hash).
 * The stored form records its parameters, so raising them later still verifies old hashes and
 * `needsRehash` upgrades them at the next login.
 *
 * Stored form: `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`.
 *
 * @example
 * const hasher = createScryptHasher();                 // production
 * const fast = createScryptHasher({ cost: 2 ** 10 });  // tests that hash a lot
 */
export function createScryptHasher(parameters: ScryptParameters = {}): PasswordHasher {
  const N = parameters.cost ?? 2 ** 15;
  const r = parameters.blockSize ?? 8;
  const p = parameters.parallelization ?? 3;
  const keyLength = parameters.keyLength ?? 64;
  const saltLength = parameters.saltLength ?? 16;
  if (!Number.isInteger(Math.log2(N)) || N < 2) throw new RangeError("scrypt cost must be a power of two");

  return {
    async hash(password) {
      const salt = randomBytes(saltLength);
      const derived = await derive(normalize(password), salt, keyLength, { N, r, p });
      return [PREFIX, N, r, p, salt.toString("base64"), derived.toString("base64")].join("$");
    },
    async verify(password, stored) {
      const parsed = parse(stored);
      // A malformed hash still costs one derivation so the caller's timing does not reveal it.
      const parameters = parsed ?? { N, r, p, salt: randomBytes(saltLength), expected: randomBytes(keyLength) };
      const derived = await derive(normalize(password), parameters.salt, parameters.expected.length, parameters);
      return parsed !== undefined && timingSafeEqual(derived, parameters.expected);
    },
    needsRehash(stored) {
      const parsed = parse(stored);
      return !parsed || parsed.N < N || parsed.r < r || parsed.p < p || parsed.expected.length < keyLength;
    },
  };
}

// Unicode passwords typed on different keyboards or OSes may arrive in different normal forms.
function normalize(password: string): string {
  return password.normalize("NFKC");
}

function derive(password: string, salt: Buffer, keyLength: number, options: { N: number; r: number; p: number }): Promise<Buffer> {
  const scryptOptions: ScryptOptions = {
    N: options.N,
    r: options.r,
    p: options.p,
    // Node's default (32 MiB) is exactly 128·N·r for N=2^15, which it rejects; allow headroom.
    maxmem: 256 * options.N * options.r + 1024 * 1024,
  };
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, scryptOptions, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  expected: Buffer;
}

function parse(stored: string): ParsedHash | undefined {
  const parts = typeof stored === "string" ? stored.split("$") : [];
  if (parts.length !== 6 || parts[0] !== PREFIX) return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Bounds stop a tampered record from making us allocate gigabytes.
  if (![N, r, p].every(Number.isSafeInteger) || N < 2 || N > 2 ** 20 || r < 1 || r > 32 || p < 1 || p > 16) return undefined;
  // scrypt itself throws for a cost that is not a power of two; verify must answer false instead.
  if ((N & (N - 1)) !== 0) return undefined;
  const salt = Buffer.from(parts[4]!, "base64");
  const expected = Buffer.from(parts[5]!, "base64");
  if (salt.length < 8 || expected.length < 16) return undefined;
  return { N, r, p, salt, expected };
}
