import type { ConformanceTest } from "./conformance-test.js";
import type { PasswordHasher } from "../../contracts/password-hasher.js";

/** What a conformance run may add for one adapter. */
export interface PasswordHasherConformanceOptions {
  /**
   * Stored values in the adapter's own format that a tampered database could hold (absurd cost
   * parameters, truncated salts...): each must verify false, quickly and without throwing.
   */
  hostileHashes?: readonly string[];
}

const PASSWORD = "correct horse battery staple";

/**
 * The shared suite every `PASSWORD_HASHER` adapter passes: a hash verifies its password and no
 * other, never contains it, is salted (two hashes of one password differ), Unicode normal forms
 * of one password verify alike, malformed or foreign stored values verify false instead of
 * throwing, and a fresh hash needs no rehash while garbage does. Pass a hasher with cheap
 * parameters: the suite hashes a few dozen times.
 *
 * @example
 * passwordHasherConformance(test, "scrypt", () => createScryptHasher({ cost: 2 ** 10 }));
 */
export function passwordHasherConformance(
  test: ConformanceTest,
  name: string,
  create: () => PasswordHasher,
  options: PasswordHasherConformanceOptions = {},
): void {
  test(`${name}: a hash verifies its password and no other`, async (t) => {
    const hasher = create();
    const stored = await hasher.hash(PASSWORD);
    t.is(typeof stored, "string");
    t.false(stored.includes(PASSWORD));
    t.false(stored.includes("correct horse"));
    t.true(await hasher.verify(PASSWORD, stored));
    t.false(await hasher.verify("correct horse battery stapl", stored));
    t.false(await hasher.verify(`${PASSWORD} `, stored));
    t.false(await hasher.verify("", stored));
  });

  test(`${name}: the same password hashes differently each time (random salt)`, async (t) => {
    const hasher = create();
    const [first, second] = await Promise.all([hasher.hash("same password"), hasher.hash("same password")]);
    t.not(first, second);
    t.true(await hasher.verify("same password", first));
    t.true(await hasher.verify("same password", second));
  });

  test(`${name}: Unicode normal forms verify alike`, async (t) => {
    const hasher = create();
    const composed = await hasher.hash("caf\u00e9-password");
    t.true(await hasher.verify("cafe\u0301-password", composed));
    const decomposed = await hasher.hash("cafe\u0301-password");
    t.true(await hasher.verify("caf\u00e9-password", decomposed));
  });

  test(`${name}: malformed, foreign or hostile stored hashes verify false instead of throwing`, async (t) => {
    const hasher = create();
    const foreign = ["", "plain", "$", "$$$$$", "bcrypt$x$y$z$a$b", "$2b$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ012", "x".repeat(10_000)];
    for (const stored of [...foreign, ...(options.hostileHashes ?? [])]) {
      t.false(await hasher.verify("password", stored), stored.slice(0, 80));
    }
  });

  test(`${name}: a fresh hash needs no rehash; garbage does`, async (t) => {
    const hasher = create();
    t.false(hasher.needsRehash(await hasher.hash(PASSWORD)));
    for (const stored of ["", "garbage", "bcrypt$x$y$z$a$b"]) t.true(hasher.needsRehash(stored), stored);
  });
}
