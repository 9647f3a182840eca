import test from "ava";
import { createScryptHasher } from "./password-hasher.js";

const fast = createScryptHasher({ cost: 2 ** 10 });

test("a hash verifies its password and no other", async (t) => {
  const stored = await fast.hash("correct horse battery staple");
  t.true(stored.startsWith("scrypt$1024$8$1$"));
  t.false(stored.includes("correct horse"));
  t.true(await fast.verify("correct horse battery staple", stored));
  t.false(await fast.verify("correct horse battery stapl", stored));
  t.false(await fast.verify("", stored));
});

test("the same password hashes differently each time (random salt)", async (t) => {
  t.not(await fast.hash("same password"), await fast.hash("same password"));
});

test("Unicode normal forms verify alike", async (t) => {
  const stored = await fast.hash("caf\u00e9-password");
  t.true(await fast.verify("cafe\u0301-password", stored));
});

test("malformed or hostile stored hashes verify false instead of throwing", async (t) => {
  for (const stored of ["", "plain", "scrypt$1024$8$1$$", "scrypt$1073741824$8$1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==", "bcrypt$x$y$z$a$b"]) {
    t.false(await fast.verify("password", stored), stored);
  }
});

test("the default parameters are memory-hard and old weaker hashes need a rehash", async (t) => {
  const strong = createScryptHasher();
  const stored = await strong.hash("a long enough password");
  t.true(stored.startsWith("scrypt$32768$8$1$"));
  t.true(await strong.verify("a long enough password", stored));
  t.false(strong.needsRehash(stored));
  t.true(strong.needsRehash(await fast.hash("a long enough password")));
  t.true(strong.needsRehash("garbage"));
});
