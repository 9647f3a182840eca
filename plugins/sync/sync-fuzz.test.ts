// The sync routes under the shared fuzz harness (issue 12's "no 5xx from any input"): every
// documented operation of an app serving a synced model, attacked with hostile bodies, queries,
// paths and credentials; a refused request writes nothing.
import test from "ava";
import { createScryptHasher, PASSWORD_HASHER, authPlugin } from "../../index.js";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { fuzzApp } from "../../test/fuzz/fuzz-app.js";
import { TestUser } from "../../test/support/auth-test-app.js";
import { SyncTodo } from "../../test/support/sync-test-app.js";
import { modelRouter, Permissions } from "../rest/index.js";
import { syncApp } from "./index.js";

test.after.always(() => stopTestDatabase());

test("the sync routes answer every hostile request with a 4xx or a nack, and write nothing they refuse", async (t) => {
  const summary = await fuzzApp(t, {
    build: async (options) =>
      (await createTestApp(options))
        .register(authPlugin({ userModel: TestUser }))
        .override(PASSWORD_HASHER, { useValue: createScryptHasher({ cost: 2 ** 10 }) })
        .register(
          modelRouter("/sync-todos", SyncTodo, {
            permissions: {
              list: [Permissions.IsOwner],
              create: [Permissions.IsAuthenticated],
              read: [Permissions.IsOwner],
              update: [Permissions.IsOwner],
              delete: [Permissions.IsOwner],
            },
            sync: { scope: { type: "owner" } },
          }),
        )
        .register(syncApp()),
    seedBodies: {
      "POST /sync/mutate": [{ mutationId: "fuzz-seed-1", collection: "synctodos", operation: "create", id: "fuzz-todo-1", data: { title: "seed", done: false } }],
      "POST /sync/mutate/batch": [{ mutations: [{ mutationId: "fuzz-seed-2", collection: "synctodos", operation: "create", id: "fuzz-todo-2", data: { title: "seed" } }] }],
    },
  });
  for (const operation of ["GET /sync/snapshot", "POST /sync/mutate", "POST /sync/mutate/batch", "GET /sync/entities", "GET /sync/key"]) {
    t.true(summary.operations.includes(operation), `${operation} was fuzzed`);
  }
});
