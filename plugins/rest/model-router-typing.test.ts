import test from "ava";
import mongoose, { Schema } from "mongoose";
import {
  modelRouter,
  OwnerQueryFilter,
  Permissions,
  type MethodPermissions,
  type ModelRouterOptions,
  type PermissionCheck,
} from "../../index.js";
import { createTestApp, stopTestDatabase } from "../../hosts/testing.js";
import { as } from "../../test/support/rest-hosts.js";
import { TokenMap } from "../../test/support/token-map-authentication.js";

test.after.always(() => stopTestDatabase());

// A model built as docs/rest.md builds one: its document type is inferred from the schema.
const postSchema = new Schema(
  {
    title: { type: String, required: true, description: "Title" },
    published: { type: Boolean, default: false, description: "Whether anyone may read it" },
    ownerId: { type: Schema.Types.ObjectId, description: "Author" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
const Post = mongoose.model("TypedPost", postSchema);
type PostFields = mongoose.InferSchemaType<typeof postSchema>;

/** Everyone may read a published post; its owner (or an admin) may read it anyway. */
const PublishedOrOwner: PermissionCheck<PostFields> = (method, user, post, context) =>
  post === undefined || post.published === true || Permissions.IsOwner(method, user, post, context) === true;

// Compile-time checks: `npm test` type-checks this file, so each `@ts-expect-error` must meet an
// error and every other line must compile. Never called: some of these are wrong on purpose.
export function modelRouterTypeChecks(): void {
  // Object checks and hooks are typed by the model passed to modelRouter, with no type argument.
  modelRouter("/posts", Post, {
    permissions: {
      list: [Permissions.IsAny],
      read: [(_method, _user, post) => post === undefined || post.published === true],
      update: [Permissions.IsOwner, (_method, _user, post) => post?.title !== "locked"],
    },
    preCreate: (body) => ({ ...body, title: body.title?.trim() }),
    postCreate: (doc) => void doc.published,
    preUpdate: (body, _req, doc) => (doc.published ? null : body),
    postUpdate: (doc, _body, _req, previous) => void [doc.title, previous.published],
    preDelete: (doc) => (doc.published ? null : doc),
    postDelete: (doc) => void doc.ownerId,
  });
  // @ts-expect-error a misspelt field in an object check
  modelRouter("/posts", Post, { permissions: { read: [(_method, _user, post) => post?.publshed === true] } });
  // @ts-expect-error …in a hook's document
  modelRouter("/posts", Post, { permissions: {}, preDelete: (doc) => doc.publshed });
  // @ts-expect-error …in a hook's body
  modelRouter("/posts", Post, { permissions: {}, preCreate: (body) => (body.publshed ? body : null) });
  // @ts-expect-error …in the legacy form too
  modelRouter(Post, { permissions: {}, postCreate: (doc) => doc.publshed });

  // Built-in checks, OwnerQueryFilter and checks typed without `T` fit every model, including
  // one typed `Model<any>` (what `mongoose.models.X` gives).
  const IsEditor: PermissionCheck = (_method, user) => user?.role === "editor";
  const everyBuiltIn = [Permissions.IsAny, Permissions.IsAuthenticated, Permissions.IsAuthenticatedOrReadOnly, Permissions.IsOwner, Permissions.IsAdmin, IsEditor];
  const shared: MethodPermissions = { list: everyBuiltIn, read: everyBuiltIn };
  modelRouter("/posts", Post, { permissions: shared, queryFilter: OwnerQueryFilter });
  modelRouter("/any", mongoose.models.TypedPost!, { permissions: shared, queryFilter: OwnerQueryFilter });
  // A check written for this model fits it, and options may be declared apart from the call.
  const options: ModelRouterOptions<PostFields> = { permissions: { read: [PublishedOrOwner] }, queryFilter: OwnerQueryFilter };
  modelRouter("/posts", Post, options);
  // @ts-expect-error …but not a model whose documents lack its fields
  modelRouter("/tags", mongoose.model("TypedTag", new Schema({ label: String })), options);
}

test("a typed object check sees the loaded document at run time", async (t) => {
  const tokens = new TokenMap();
  const author = tokens.user("typed-author");
  const reader = tokens.user("typed-reader");
  const app = (await createTestApp()).register(tokens.plugin()).register(
    modelRouter("/typed-posts", Post, {
      permissions: { create: [Permissions.IsAuthenticated], read: [Permissions.IsAuthenticated, PublishedOrOwner] },
    }),
  );
  const http = await app.build();
  t.teardown(() => app.stop());
  const draft = await as(http, author.auth).post("/typed-posts", { title: "Draft" }).expect(201);
  const released = await as(http, author.auth).post("/typed-posts", { title: "Out", published: true }).expect(201);
  const statuses = await Promise.all([
    as(http, reader.auth).get(`/typed-posts/${released.body.data.id}`),
    as(http, reader.auth).get(`/typed-posts/${draft.body.data.id}`),
    as(http, author.auth).get(`/typed-posts/${draft.body.data.id}`),
  ]).then((responses) => responses.map((response) => response.status));
  t.deepEqual(statuses, [200, 403, 200]);
});
