// A test app for the admin plugin, built through either host: a Gadget model served by a model
// router with an `admin` option (picked up from the registry), a user model with roles (given in
// `models`), role-based access from the roles collection, and a few scripts.
import type { Express } from "express";
import mongoose, { Schema } from "mongoose";
import { authPlugin, baseUserPlugin, defaultPlugins, isDisabledPlugin, modelRouter, OwnerQueryFilter, Permissions, setupServer, type AuthPluginOptions, type SvcApp } from "../../index.js";
import { createTestApp, createUser, loginAs, testAppOptions } from "../../hosts/testing.js";
import { adminOwnedBy, adminPlugin, roleModel, type AdminOptions } from "../../plugins/admin/index.js";

export type Host = "SvcApp" | "setupServer";
export const HOSTS: readonly Host[] = ["SvcApp", "setupServer"];

export interface GadgetFields {
  title: string;
  note?: string;
  done: boolean;
  status?: "new" | "used";
  tags: string[];
  ownerId?: mongoose.Types.ObjectId;
  deleted?: boolean;
}

const gadgetSchema = new Schema<GadgetFields>(
  {
    title: { type: String, required: true, maxlength: 200, description: "What it is" },
    note: { type: String, maxlength: 500, description: "Free text" },
    done: { type: Boolean, default: false, description: "Whether it is done" },
    status: { type: String, enum: ["new", "used"], default: "new", description: "Condition" },
    tags: { type: [String], description: "Labels" },
    ownerId: { type: Schema.Types.ObjectId, ref: "AdminTestUser", index: true, description: "Owner" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
gadgetSchema.plugin(defaultPlugins);
export const Gadget = (mongoose.models.Gadget as mongoose.Model<GadgetFields> | undefined) ?? mongoose.model<GadgetFields>("Gadget", gadgetSchema);

const userSchema = new Schema(
  {
    name: { type: String, maxlength: 100, description: "Display name" },
    roles: { type: [String], default: [], description: "Role names (the roles collection)" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
userSchema.plugin(baseUserPlugin);
userSchema.plugin(isDisabledPlugin);
export const AdminTestUser = mongoose.models.AdminTestUser ?? mongoose.model("AdminTestUser", userSchema);

/** The roles every test app can use. */
export const ROLES = [
  { name: "full", permissions: ["*"] },
  { name: "support", permissions: ["admin:access", "adminGadget:read", "adminGadget:writeOwned", "adminAdminTestUser:read", "adminAdminTestUser:writeOwned"] },
  { name: "tasks-viewer", permissions: ["admin:access", "admin:viewBackgroundTasks"] },
  { name: "no-access", permissions: ["adminGadget:read"] },
];

let seeded: Promise<unknown> | undefined;
/** Seeds the roles once per test file (its database). */
export function seedRoles(): Promise<unknown> {
  seeded ??= Promise.all(ROLES.map((role) => roleModel().updateOne({ name: role.name }, { $set: { permissions: role.permissions } }, { upsert: true })));
  return seeded;
}

const ownerOnly = [Permissions.IsOwner];
const gadgetOptions = {
  permissions: { list: ownerOnly, create: ownerOnly, read: ownerOnly, update: ownerOnly, delete: ownerOnly },
  queryFilter: OwnerQueryFilter,
  admin: { displayName: "Gadgets", listFields: ["title", "done", "status", "tags", "created"] },
};

/** A running admin test app and a way to make signed-in users of it. */
export interface AdminTestApp {
  readonly http: Express;
  readonly app: SvcApp;
  /** A user with these roles (or `admin: true`), signed in. */
  user(fields?: { roles?: string[]; admin?: boolean; name?: string }): Promise<{ id: string; token: string }>;
}

/** The admin options of the test apps, minus what a test overrides. */
export function testAdminOptions(extra: Partial<AdminOptions> = {}): AdminOptions {
  return {
    models: [
      {
        model: AdminTestUser,
        routePath: "/users",
        displayName: "Users",
        listFields: ["email", "name", "admin", "roles", "created"],
        adminAccess: { ownedBy: adminOwnedBy("_id") },
      },
    ],
    accessControl: {},
    ...extra,
  };
}

/** Builds the app through `host`; stopped by `teardown`. */
export async function adminTestApp(
  host: Host,
  teardown: (fn: () => Promise<void>) => void,
  options: AdminOptions = testAdminOptions(),
  env: Record<string, string> = {},
  /** More auth plugin options (the SvcApp host): `accountDeletion`, say. */
  auth: Partial<AuthPluginOptions> = {},
): Promise<AdminTestApp> {
  let app: SvcApp;
  let http: Express;
  if (host === "SvcApp") {
    app = (await createTestApp({ env }))
      .register(authPlugin({ userModel: AdminTestUser, profileFields: ["name"], ...auth }))
      .register(modelRouter("/gadgets", Gadget, gadgetOptions))
      .register(adminPlugin(options));
    http = await app.build();
  } else {
    const server = await setupServer({
      ...(await testAppOptions({ env })),
      skipListen: true,
      userModel: AdminTestUser,
      auth: { profileFields: ["name"] },
      plugins: [adminPlugin(options)],
      addRoutes(router) {
        router.use("/gadgets", modelRouter(Gadget, gadgetOptions));
      },
    });
    app = server.svcApp;
    http = server.app;
  }
  teardown(() => app.stop());
  await seedRoles();
  return {
    http,
    app,
    async user(fields = {}) {
      const account = await createUser(app, { roles: fields.roles ?? [], admin: fields.admin ?? false, ...(fields.name ? { name: fields.name } : {}) });
      return { id: account.id, token: await loginAs(app, account) };
    },
  };
}
