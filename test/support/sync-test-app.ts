// A started app with the auth plugin (shared by plugins/sync tests), synced models of every scope and the sync plugin, for the
// sync plugin's HTTP tests. Models are compiled once per process (mongoose's default connection).
import type { Express, Request } from "express";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { HttpErrors } from "../../kernel/http-errors.js";
import { authTestApp, uniqueEmail } from "./auth-test-app.js";
import { isDeletedPlugin, modelRouter, Permissions } from "../../plugins/rest/index.js";
import { realtimeApp, syncApp, syncPlugin, type RealtimeAppOptions } from "../../plugins/sync/index.js";
import type { SvcApp } from "../../hosts/svc-app.js";
import type { LogCapture } from "../../plugins/logging/log-capture.js";

const OPTIONS = { strict: "throw" as const, toJSON: { virtuals: true }, toObject: { virtuals: true } };

function syncedSchema(fields: Record<string, unknown>): Schema {
  const schema = new Schema({ _id: { type: String, description: "Client-minted id" }, ...fields }, OPTIONS);
  schema.plugin(isDeletedPlugin);
  schema.plugin(syncPlugin);
  return schema;
}

const model = (name: string, schema: () => Schema) => (mongoose.models[name] as mongoose.Model<Record<string, unknown>> | undefined) ?? mongoose.model<Record<string, unknown>>(name, schema());

export const SyncTodo = model("SyncTodo", () =>
  syncedSchema({
    title: { type: String, required: true, maxlength: 200, description: "What to do" },
    done: { type: Boolean, default: false, description: "Whether it is done" },
    ownerId: { type: String, description: "Owner" },
  }),
);
export const SyncTask = model("SyncTask", () =>
  syncedSchema({
    title: { type: String, required: true, description: "Task" },
    assigneeId: { type: String, required: true, description: "Who it is assigned to (its stream)" },
    ownerId: { type: String, description: "Creator" },
  }),
);
export const SyncNote = model("SyncNote", () =>
  syncedSchema({
    text: { type: String, required: true, description: "Note text" },
    orgId: { type: String, required: true, description: "Tenant" },
    ownerId: { type: String, description: "Author" },
  }),
);
export const SyncNews = model("SyncNews", () => syncedSchema({ headline: { type: String, required: true, description: "Headline" } }));
export const SyncCard = model("SyncCard", () =>
  syncedSchema({
    label: { type: String, required: true, description: "Card label" },
    board: { type: String, required: true, description: "Board name (the custom stream)" },
  }),
);

/** What the Todo router's hooks saw, so tests can prove sync runs them. */
export const hookCalls: string[] = [];

const owned = { list: [Permissions.IsOwner], read: [Permissions.IsOwner], create: [Permissions.IsAuthenticated], update: [Permissions.IsOwner], delete: [Permissions.IsOwner] };
const open = { list: [Permissions.IsAuthenticated], read: [Permissions.IsAuthenticated], create: [Permissions.IsAuthenticated], update: [Permissions.IsAuthenticated], delete: [Permissions.IsAuthenticated] };

/** Set `failing` to make the app's `getUserScopes` throw, as a lookup in a database that is away would. */
export const scopeLookup = { failing: false };

/** Tenants and boards follow the email's prefix: `acme-...@example.com` is in tenant acme and board acme. */
export function scopesOf(email: string): string[] {
  const prefix = email.split("-")[0]!;
  return [`tenant:${prefix}`, `board:${prefix}`, ...(prefix === "both" ? ["tenant:acme", "tenant:beta"] : [])];
}

export interface SyncCaller {
  token: string;
  id: string;
  email: string;
}

export interface SyncTestApp {
  app: SvcApp;
  http: Express;
  /** Where socket.io clients connect (with `realtime` only: the app is then listening). */
  socketUrl?: string;
  /** The app's HTTP URL (with `realtime` only), e.g. a sync client's `baseUrl`. */
  url?: string;
  logs: LogCapture;
  signup(prefix?: string): Promise<SyncCaller>;
}

export interface SyncTestAppOptions {
  /** Registers `realtimeApp(realtime)` too and starts the app on a free port. */
  realtime?: RealtimeAppOptions;
  /** Extra environment (e.g. `TOKEN_EXPIRES_IN`). */
  env?: Record<string, string>;
  /** Another process's test database (a second app process), instead of this process's own. */
  database?: { uri: string; dbName: string };
}

/** Builds the app; each test file makes one and shares it (ids and users are unique per test). */
export async function syncTestApp(t: { teardown: (fn: () => Promise<void> | void) => void }, options: SyncTestAppOptions = {}): Promise<SyncTestApp> {
  const listen = { ...(options.realtime ? { port: 0, host: "127.0.0.1" } : {}), ...(options.database ? { database: options.database } : {}) };
  const { app, http, logs } = await authTestApp(t, {}, options.env ?? {}, (app) => {
    app
      .register(
        modelRouter("/sync-todos", SyncTodo, {
          permissions: owned,
          sync: { scope: { type: "owner" } },
          preCreate: (body: Record<string, unknown>) => {
            hookCalls.push(`preCreate:${String(body.title)}`);
            if (body.title === "refused by hook") return null;
            if (body.title === "server trouble") throw HttpErrors.INTERNAL({ detail: "hook failed" });
            return body;
          },
          preUpdate: (body: Record<string, unknown>) => {
            if (body.title === "rejected title") throw new Error("Title rejected");
            return body;
          },
          postCreate: (doc: { _id: unknown }) => void hookCalls.push(`postCreate:${String(doc._id)}`),
        }),
      )
      .register(modelRouter("/sync-tasks", SyncTask, { permissions: open, sync: { scope: { type: "owner", field: "assigneeId" } } }))
      .register(modelRouter("/sync-notes", SyncNote, { permissions: open, sync: { scope: { type: "tenant", field: "orgId" } } }))
      .register(modelRouter("/sync-news", SyncNews, { permissions: { ...open, create: [Permissions.IsAdmin], update: [Permissions.IsAdmin], delete: [Permissions.IsAdmin] }, sync: { scope: { type: "broadcast" } } }))
      .register(
        modelRouter("/sync-cards", SyncCard, {
          permissions: open,
          sync: { scope: (doc) => `board:${String(doc.board)}`, snapshotFilter: (user) => ({ board: { $in: scopesOf(String(user.email)).map((key) => key.slice("board:".length)) } }) },
        }),
      )
      .register(
        syncApp({
          getUserScopes: (user) => {
            if (scopeLookup.failing) throw new Error("the scope lookup is down (scopeLookup.failing)");
            return scopesOf(String(user.email));
          },
        }),
      );
    if (options.realtime) app.register(realtimeApp(options.realtime));
  }, listen);
  const running = options.realtime ? await app.start() : undefined;
  return {
    app,
    http,
    socketUrl: running?.socketUrl,
    url: running?.url,
    logs,
    async signup(prefix = "user") {
      const email = uniqueEmail(prefix);
      const response = await request(http).post("/auth/signup").send({ email, password: "correct horse battery staple" }).expect(201);
      return { token: response.body.data.token as string, id: response.body.data.userId as string, email };
    },
  };
}

/** Requests as a caller (or anonymously). */
export function as(http: Express, caller?: SyncCaller) {
  const auth = (call: request.Test) => (caller ? call.set("Authorization", `Bearer ${caller.token}`) : call);
  return {
    get: (path: string) => auth(request(http).get(path)),
    post: (path: string) => auth(request(http).post(path)),
  };
}

let counter = 0;
/** A unique id for entities and mutations. */
export function uid(label = "id"): string {
  return `${label}-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export type { Request };
