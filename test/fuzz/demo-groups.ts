// The demo's fuzz, in groups by path and the groups in parts, one part per test file: ava runs
// files (not tests) side by side, so the demo's minutes of fuzzing spread over both workers
// instead of ending the suite on one. Every group is a serial test of its part (they share the
// file's database, and the harness checks that refused requests write nothing).
import test from "ava";
import { createScryptHasher, PASSWORD_HASHER } from "../../index.js";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { withDemoPlugins } from "../../examples/demo/app.js";
import { fuzzApp } from "./fuzz-app.js";

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
 * The demo's operations in groups by path, each finishing well within ava's timeout. An operation
 * belongs to the first group naming a prefix of its path; the last group takes whatever no group
 * names, so routes a plugin adds later are fuzzed without a change here. A resource's collection
 * and item routes stay in one group (the item routes attack the records its create made).
 */
const GROUPS: Array<{ name: string; paths: readonly string[] }> = [
  { name: "todos and the demo's own routes", paths: ["/todos", "/"] },
  { name: "auth", paths: ["/auth"] },
  { name: "feature flags", paths: ["/feature-flags"] },
  { name: "sync", paths: ["/sync"] },
  { name: "admin: todos", paths: ["/admin/todos"] },
  { name: "admin: users", paths: ["/admin/users"] },
  { name: "admin: the rest", paths: ["/admin"] },
  { name: "comms", paths: ["/comms"] },
  { name: "mcp", paths: ["/mcp"] },
];
const OTHER = "every other operation";
const pathOf = (operation: string) => operation.slice(operation.indexOf(" ") + 1);
const matches = (prefix: string, path: string) => (prefix === "/" ? path === "/" : path === prefix || path.startsWith(`${prefix}/`));
const groupOf = (operation: string) => GROUPS.find((group) => group.paths.some((prefix) => matches(prefix, pathOf(operation))))?.name ?? OTHER;

/** Every group name, the catch-all last. */
export const DEMO_FUZZ_GROUPS: readonly string[] = [...GROUPS.map((group) => group.name), OTHER];

/**
 * The groups of each test file (`demo-<part>.test.ts`), in the order the single file had them,
 * balanced by their fuzzing time on two cores. Together they hold every group once
 * (demo-todos-auth-flags-sync.test.ts checks that).
 */
export const DEMO_FUZZ_PARTS = {
  "todos-auth-flags-sync": ["todos and the demo's own routes", "auth", "feature flags", "sync"],
  "admin-todos-users": ["admin: todos", "admin: users"],
  "admin-rest-comms-mcp-other": ["admin: the rest", "comms", "mcp", OTHER],
} as const satisfies Record<string, readonly string[]>;

/** The demo's own routes: each must be fuzzed by its group, whichever part that is in. */
const OWN_ROUTES = ["POST /todos", "PATCH /todos/{id}", "GET /todos", "POST /auth/login", "POST /feature-flags/flags", "POST /sync/mutate"];

/**
 * Declares the serial tests of one part: one per group, then a check that the demo's own routes
 * of these groups were fuzzed.
 *
 * @example
 * fuzzDemoPart("todos-auth-flags-sync");
 */
export function fuzzDemoPart(part: keyof typeof DEMO_FUZZ_PARTS): void {
  const names: readonly string[] = DEMO_FUZZ_PARTS[part];
  test.after.always(() => stopTestDatabase());

  const fuzzed: string[] = [];
  for (const name of names) {
    test.serial(`the demo (${name}) answers every hostile request with a 4xx in the error shape, writes nothing it refuses, and keeps answering`, async (t) => {
      const include = (operation: string) => groupOf(operation) === name;
      const summary = await fuzzApp(t, {
        // A cheap hasher: sign-ups and logins the fuzzer gets right must not spend the budget on scrypt.
        build: async (options) => withDemoPlugins(await createTestApp(options)).override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) }),
        include,
        allowEmpty: name === OTHER,
        seedBodies,
      });
      fuzzed.push(...summary.operations);
      t.true(summary.operations.every(include), "only this group's operations were attacked");
    });
  }

  const ownRoutes = OWN_ROUTES.filter((operation) => names.includes(groupOf(operation)));
  if (ownRoutes.length === 0) return;
  test.serial(`every group of this part fuzzed the demo's own routes (${names.join(", ")})`, (t) => {
    // The document lists the demo's own routes; new plugins' routes join them without a change here.
    for (const operation of ownRoutes) t.true(fuzzed.includes(operation), `${operation} was fuzzed`);
  });
}
