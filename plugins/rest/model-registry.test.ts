import test from "ava";
import mongoose from "mongoose";
import { MODEL_REGISTRY, modelRouter, OwnerQueryFilter, Permissions, type ModelRegistration, type SvcPlugin } from "../../index.js";
import { stopTestDatabase } from "../../hosts/testing.js";
import { buildRestApp, HOSTS, spec } from "../../test/support/rest-hosts.js";

test.after.always(() => stopTestDatabase());

const options = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };
const Post = mongoose.model(
  "RegistryPost",
  new mongoose.Schema({ title: { type: String, description: "Title" }, ownerId: { type: mongoose.Schema.Types.ObjectId, description: "Owner" } }, options),
);
const Tag = mongoose.model("RegistryTag", new mongoose.Schema({ label: { type: String, description: "Label" } }, options));

const preCreate = (body: Record<string, unknown>) => body;
const postOptions = {
  permissions: { list: [Permissions.IsAny], create: [Permissions.IsAuthenticated], read: [Permissions.IsOwner] },
  queryFilter: OwnerQueryFilter,
  preCreate,
  admin: { displayName: "Posts", listFields: ["title"] },
  mcp: { excludeFields: ["ownerId"] },
};

/** A plugin registered before the routers that reads the registry when it starts. */
function reader(seen: string[][]): SvcPlugin {
  return {
    name: "registry-reader",
    start(ctx) {
      seen.push(ctx.resolve(MODEL_REGISTRY).list().map((entry) => entry.path));
    },
  };
}

for (const host of HOSTS) {
  test(`${host}: the model registry lists every router of the app with its options`, async (t) => {
    const seen: string[][] = [];
    const app = await buildRestApp(
      host,
      [spec("/posts", Post, postOptions), spec("/tags", Tag, { permissions: { list: [Permissions.IsAny] } }), spec("/archive/posts", Post, { permissions: { read: [Permissions.IsAdmin] } })],
      [reader(seen)],
    );
    t.teardown(() => app.stop());

    const registry = app.svcApp.kernel.container.resolve(MODEL_REGISTRY);
    t.deepEqual(registry.list().map((entry) => [entry.path, entry.modelName]), [
      ["/posts", "RegistryPost"],
      ["/tags", "RegistryTag"],
      ["/archive/posts", "RegistryPost"],
    ]);
    // Complete before any plugin starts, whatever the registration order.
    t.deepEqual(seen, [["/posts", "/tags", "/archive/posts"]]);

    const posts: ModelRegistration = registry.list()[0]!;
    t.is(posts.permissions, postOptions.permissions);
    t.is(posts.hooks.preCreate as unknown, preCreate);
    t.is(posts.ownerField, "ownerId");
    t.deepEqual(posts.admin, postOptions.admin);
    t.deepEqual(posts.mcp, postOptions.mcp);
    t.is(posts.sync, undefined);
    t.is(posts.model.db.model(posts.modelName) as unknown, Post);
    t.deepEqual(registry.byModel("RegistryPost").map((entry) => entry.path), ["/posts", "/archive/posts"]);
  });
}

test("each app has its own registry", async (t) => {
  const [a, b] = await Promise.all([
    buildRestApp("SvcApp", [spec("/a-tags", Tag, { permissions: { list: [Permissions.IsAny] } })]),
    buildRestApp("SvcApp", [spec("/b-tags", Tag, { permissions: { list: [Permissions.IsAny] } })]),
  ]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]).then(() => undefined));
  t.deepEqual(a.svcApp.kernel.container.resolve(MODEL_REGISTRY).list().map((entry) => entry.path), ["/a-tags"]);
  t.deepEqual(b.svcApp.kernel.container.resolve(MODEL_REGISTRY).list().map((entry) => entry.path), ["/b-tags"]);
  // A router built but never registered is in no registry.
  modelRouter("/unused", Tag, { permissions: {} });
  t.is(a.svcApp.kernel.container.resolve(MODEL_REGISTRY).byModel("RegistryTag").length, 1);
});
