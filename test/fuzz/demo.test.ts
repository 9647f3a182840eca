// Every operation the demo documents (its todos, auth and feature-flag routes, and whatever a
// plugin adds to it later) under hostile input: issue 12's "no 5xx from any input", on every CI
// run, with a fixed seed (FUZZ_SEED) and a bounded budget (FUZZ_RUNS).
import test from "ava";
import { createScryptHasher, PASSWORD_HASHER } from "../../index.js";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { withDemoPlugins } from "../../examples/demo/app.js";
import { fuzzApp } from "./fuzz-app.js";

test.after.always(() => stopTestDatabase());

// Bodies the demo accepts, with every part filled in: hostile values planted in them get past
// the flag rules no schema states (a boolean flag's rules need enabled: true, weights sum to 100).
const seedBodies = {

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
    
};

/**
 * The demo's operations in groups by path, each a serial test (they share the file's database, and
 * the harness checks that refused requests write nothing): every group finishes well within
 * ava's timeout. The last group takes whatever the others do not name, so routes a plugin adds
 * later are fuzzed without a change here.
 */
const GROUPS: Array<{ name: string; paths: readonly string[] }> = [
  { name: "todos and the demo's own routes", paths: ["/todos", "/ "] },
  { name: "auth", paths: ["/auth"] },
  { name: "feature flags", paths: ["/feature-flags"] },
  { name: "sync", paths: ["/sync"] },
  { name: "admin", paths: ["/admin"] },
  { name: "comms", paths: ["/comms"] },
];
const pathOf = (operation: string) => operation.slice(operation.indexOf(" ") + 1);
const inGroup = (paths: readonly string[], operation: string) => paths.some((prefix) => (prefix === "/ " ? pathOf(operation) === "/" : pathOf(operation) === prefix || pathOf(operation).startsWith(`${prefix}/`)));
const named = GROUPS.flatMap((group) => group.paths);

const fuzzed: string[] = [];
for (const group of [...GROUPS, { name: "every other operation", paths: [] as readonly string[] }]) {
  test.serial(`the demo (${group.name}) answers every hostile request with a 4xx in the error shape, writes nothing it refuses, and keeps answering`, async (t) => {
    const include = group.paths.length > 0 ? (operation: string) => inGroup(group.paths, operation) : (operation: string) => !inGroup(named, operation);
    const summary = await fuzzApp(t, {
      // A cheap hasher: sign-ups and logins the fuzzer gets right must not spend the budget on scrypt.
      build: async (options) => withDemoPlugins(await createTestApp(options)).override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) }),
      include,
      allowEmpty: group.paths.length === 0,
      seedBodies,
    });
    fuzzed.push(...summary.operations);
    t.true(summary.operations.every(include), "only this group's operations were attacked");
  });
}

test.serial("every group fuzzed the demo's own routes", (t) => {
  // The document lists the demo's own routes; new plugins' routes join them without a change here.
  for (const operation of ["POST /todos", "PATCH /todos/{id}", "GET /todos", "POST /auth/login", "POST /feature-flags/flags", "POST /sync/mutate"]) {
    t.true(fuzzed.includes(operation), `${operation} was fuzzed`);
  }
});
