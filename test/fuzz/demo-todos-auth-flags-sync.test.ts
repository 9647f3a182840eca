// Every operation the demo documents (its todos, auth and feature-flag routes, and whatever a
// plugin adds to it later) under hostile input: issue 12's "no 5xx from any input", on every CI
// run, with a fixed seed (FUZZ_SEED) and a bounded budget (FUZZ_RUNS). The groups are spread over
// three files so that both of ava's workers fuzz (demo-groups.ts); this one also checks that the
// three together leave no group out.
import test from "ava";
import { DEMO_FUZZ_GROUPS, DEMO_FUZZ_PARTS, fuzzDemoPart } from "./demo-groups.js";

test("the demo's fuzz files together hold every group once", (t) => {
  t.deepEqual(Object.values(DEMO_FUZZ_PARTS).flat().sort(), [...DEMO_FUZZ_GROUPS].sort());
});

fuzzDemoPart("todos-auth-flags-sync");
