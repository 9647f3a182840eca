// The demo's Todo: an owner-scoped model served by modelRouter and synced to its owner's devices.
// Each signed-in user lists, reads, changes and deletes only their own todos; the owner is set
// from the token on create. Clients mint ids offline, so `_id` is a string (a UUID).
import { randomUUID } from "node:crypto";
import mongoose from "mongoose";
import { DateOnly, defaultPlugins, HttpErrors, modelRouter, OwnerQueryFilter, Permissions, registerDateOnlyType } from "../../index.js";
import { mcpTool } from "../../plugins/mcp/index.js";
import { syncPlugin } from "../../plugins/sync/index.js";

registerDateOnlyType();

export interface TodoFields {
  _id: string;
  title: string;
  done: boolean;
  priority?: number;
  dueOn?: Date;
  tags: string[];
  ownerId?: mongoose.Types.ObjectId;
}

const todoSchema = new mongoose.Schema<TodoFields>(
  {
    _id: { type: String, default: () => randomUUID(), description: "The todo's id: a UUID, minted by a sync client offline, or by the server on a REST create (which may not send one)" },
    title: { type: String, required: true, trim: true, maxlength: 200, description: "What to do" },
    done: { type: Boolean, default: false, description: "Whether it is done" },
    priority: { type: Number, min: 1, max: 5, description: "1 (low) to 5 (urgent)" },
    dueOn: { type: DateOnly, description: "The day it is due" },
    tags: { type: [String], description: "Free-form labels" },
    ownerId: { type: mongoose.Schema.Types.ObjectId, ref: "User", index: true, description: "The user who owns it" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
todoSchema.plugin(defaultPlugins);
todoSchema.plugin(syncPlugin);

export const Todo = mongoose.model<TodoFields>("Todo", todoSchema);

const ownerOnly = [Permissions.IsOwner];

/** New todos per user per minute, over REST, MCP and sync together: a person never gets near it; a runaway script does. */
export const TODO_CREATES_PER_MINUTE = 120;

/**
 * `/todos`: CRUD on the caller's own todos, filterable by done, priority, due day and tag, and
 * synced to the owner's devices (`sync`: one stream per owner). One router per app. AI assistants
 * get the same five operations as MCP tools at `POST /mcp` (`todo_list`, `todo_read`,
 * `todo_create`, `todo_update`, `todo_delete`), with the same permissions; they never see the
 * owner's user id, which says nothing a caller seeing only their own todos needs. Creates are
 * throttled per user (`TODO_CREATES_PER_MINUTE`), whichever of those doors they come through.
 */
export function todoRouter() {
  return modelRouter("/todos", Todo, {
    permissions: { list: ownerOnly, create: ownerOnly, read: ownerOnly, update: ownerOnly, delete: ownerOnly },
    queryFilter: OwnerQueryFilter,
    queryFields: ["done", "priority", "dueOn", "tags"],
    sort: "-created",
    defaultLimit: 50,
    openApi: { tag: "todos", description: "A todo of the signed-in user" },
    sync: { scope: { type: "owner" } },
    mcp: { methods: ["list", "read", "create", "update", "delete"], excludeFields: ["ownerId"] },
    throttle: { create: `${TODO_CREATES_PER_MINUTE}/minute` },
  });
}

/**
 * A custom MCP tool: the caller's todos at a glance (how many, how many done, how many overdue),
 * counted within their own todos only.
 */
export function todoSummaryTool() {
  return mcpTool({
    name: "todo_summary",
    description: "Counts the caller's todos: total, done, open, and open ones past their due day",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    async handler(_args, { user }) {
      if (!user) throw HttpErrors.UNAUTHENTICATED({ detail: "Sign in to see your todos" });
      const mine = { ownerId: user.id };
      const today = new Date(new Date().toISOString().slice(0, 10));
      const [total, done, overdue] = await Promise.all([
        Todo.countDocuments(mine),
        Todo.countDocuments({ ...mine, done: true }),
        Todo.countDocuments({ ...mine, done: false, dueOn: { $lt: today } }),
      ]);
      return { total, done, open: total - done, overdue };
    },
  });
}
