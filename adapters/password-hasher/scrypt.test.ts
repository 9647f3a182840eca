import test from "ava";
import { createScryptHasher } from "./scrypt.js";
import { passwordHasherConformance } from "../conformance/password-hasher.js";

const fast = createScryptHasher({ cost: 2 ** 10 });

passwordHasherConformance(test, "scrypt", () => fast, {
  hostileHashes: [
    "scrypt$1024$8$1$$",
    // N = 2^30 would allocate 1 GiB: refused before deriving.
    "scrypt$1073741824$8$1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==",
    "scrypt$1024$99$1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==",
    "scrypt$1000$8$1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==",
    "scrypt$1024$8$1$c2FsdA==$aGFzaGhhc2hoYXNoaGFzaA==",
  ],
});

test("the stored form records scrypt and its parameters, never the password", async (t) => {
  const stored = await fast.hash("correct horse battery staple");
  t.true(stored.startsWith("scrypt$1024$8$3$"));
  t.false(stored.includes("correct horse"));
  t.true(await fast.verify("correct horse battery staple", stored));
  t.false(await fast.verify("correct horse battery stapl", stored));
  t.false(await fast.verify("", stored));
});

test("the default parameters are memory-hard and old weaker hashes need a rehash", async (t) => {
  const strong = createScryptHasher();
  const stored = await strong.hash("a long enough password");
  t.true(stored.startsWith("scrypt$32768$8$3$"));
  t.true(await strong.verify("a long enough password", stored));
  t.false(strong.needsRehash(stored));
  // Hashes stored with the earlier default (p=1) still verify, and are upgraded at the next login.
  const earlier = await createScryptHasher({ parallelization: 1 }).hash("a long enough password");
  t.true(await strong.verify("a long enough password", earlier));
  t.true(strong.needsRehash(earlier));
  t.true(strong.needsRehash(await fast.hash("a long enough password")));
  t.true(strong.needsRehash("garbage"));
});

test("a cost that is not a power of two is refused at construction", (t) => {
  t.throws(() => createScryptHasher({ cost: 1000 }), { instanceOf: RangeError });
});
