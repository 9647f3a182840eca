import test from "ava";
import { prng } from "../../../test/support/prng.js";
import { generateMutationId } from "./index.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("generateMutationId: random v4 UUIDs, reproducible from a seeded generator", (t) => {
  t.regex(generateMutationId(), UUID_V4);
  t.not(generateMutationId(), generateMutationId());
  const [a, b] = [prng(7), prng(7)];
  const first = generateMutationId(a);
  t.regex(first, UUID_V4);
  t.is(generateMutationId(b), first);
  t.not(generateMutationId(a), first);
});
