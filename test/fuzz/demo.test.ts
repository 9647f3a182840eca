// Every operation the demo documents (its todos, auth and feature-flag routes, and whatever a
// plugin adds to it later) under hostile input: issue 12's "no 5xx from any input", on every CI
// run, with a fixed seed (FUZZ_SEED) and a bounded budget (FUZZ_RUNS).
import test from "ava";
import { createScryptHasher, PASSWORD_HASHER } from "../../index.js";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { withDemoPlugins } from "../../examples/demo/app.js";
import { fuzzApp } from "./fuzz-app.js";

test.after.always(() => stopTestDatabase());

test("the demo answers every hostile request with a 4xx in the error shape, writes nothing it refuses, and keeps answering", async (t) => {
  const summary = await fuzzApp(t, {
    // A cheap hasher: sign-ups and logins the fuzzer gets right must not spend the budget on scrypt.
    build: async (options) => withDemoPlugins(await createTestApp(options)).override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) }),
    // Bodies the demo accepts, with every part filled in: hostile values planted in them get past
    // the flag rules no schema states (a boolean flag's rules need enabled: true, weights sum to 100).
    seedBodies: {
      "POST /todos": [{ title: "Write the fuzz harness", done: false, priority: 3, dueOn: "2030-01-31", tags: ["fuzz", "tests"] }],
      "POST /feature-flags/flags": [
        {
          key: "fuzz-seed-boolean",
          name: "Fuzz seed boolean",
          description: "A boolean flag with a field rule and a segment rule",
          type: "boolean",
          enabled: true,
          archived: false,
          defaultVariant: "off",
          rolloutPercentage: 50,
          rules: [
            { field: "email", operator: "contains", value: "@example.com", enabled: true },
            { segment: "admins", enabled: true },
          ],
        },
        {
          key: "fuzz-seed-variant",
          name: "Fuzz seed variant",
          type: "variant",
          enabled: true,
          defaultVariant: "light",
          variants: [{ key: "light", weight: 50 }, { key: "dark", weight: 50 }],
          rules: [{ field: "name", operator: "eq", value: "Fuzz admin", variant: "dark" }],
        },
      ],
    },
  });
  // The document lists the demo's own routes; new plugins' routes join them without a change here.
  for (const operation of ["POST /todos", "PATCH /todos/{id}", "GET /todos", "POST /auth/login", "POST /feature-flags/flags"]) {
    t.true(summary.operations.includes(operation), `${operation} was fuzzed`);
  }
});
