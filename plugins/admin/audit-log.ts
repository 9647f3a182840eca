import mongoose, { Schema, type Model } from "mongoose";
import type { RequestUser } from "../../contracts/request-user.js";
import type { SvcLogger } from "../../kernel/logger.js";
import { createdUpdatedPlugin } from "../rest/index.js";

/** One admin write, as the audit log keeps it. */
export interface AuditLogEntryFields {
  action: "create" | "update" | "delete";
  modelName: string;
  recordId: string;
  /** The fields the write set (for a delete: none). */
  fields: string[];
  /** Whether it was part of a bulk operation. */
  bulk: boolean;
  userId?: string;
  userEmail?: string;
  /** When (set by `createdUpdatedPlugin`). */
  created?: Date;
}

export type AuditLogModel = Model<AuditLogEntryFields>;

const auditSchema = new Schema<AuditLogEntryFields>(
  {
    action: { type: String, enum: ["create", "update", "delete"], required: true, description: "What the admin did" },
    modelName: { type: String, required: true, description: "The model written" },
    recordId: { type: String, required: true, description: "The id of the record written" },
    fields: { type: [String], default: [], description: "The fields the write set" },
    bulk: { type: Boolean, default: false, description: "Whether it was part of a bulk operation" },
    userId: { type: String, description: "Who did it" },
    userEmail: { type: String, description: "Their email, as it was then" },
  },
  { strict: "throw", collection: "admin_audit_log", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
auditSchema.plugin(createdUpdatedPlugin);
auditSchema.index({ created: -1 });

/**
 * The audit log's model (`AdminAuditLogEntry`, collection `admin_audit_log`): one entry per
 * admin write — who, which model and record, which fields, when (`created`).
 *
 * @example
 * await auditLogModel().find({ modelName: "Todo" }).sort({ created: -1 }).lean();
 */
export function auditLogModel(): AuditLogModel {
  return (mongoose.models.AdminAuditLogEntry ?? mongoose.model<AuditLogEntryFields>("AdminAuditLogEntry", auditSchema)) as AuditLogModel;
}

/** Fields every write touches that say nothing about what the admin changed. */
const BOOKKEEPING = new Set(["_id", "__v", "id", "created", "updated"]);

/**
 * Records admin writes. A failing record is logged as an error and never fails the write it
 * describes: the write has happened, and the client must hear so.
 *
 * @example
 * await audit.record(req.user, "update", "Todo", [{ id: doc._id, fields: ["title"] }]);
 */
export class AuditLog {
  constructor(
    private readonly model: AuditLogModel,
    private readonly logger: SvcLogger,
  ) {}

  async record(user: RequestUser | undefined, action: AuditLogEntryFields["action"], modelName: string, writes: readonly { id: unknown; fields: readonly string[] }[], bulk = false): Promise<void> {
    if (writes.length === 0) return;
    const entries = writes.map((write) => ({
      action,
      modelName,
      recordId: String(write.id),
      fields: write.fields.filter((field) => !BOOKKEEPING.has(field)),
      bulk,
      userId: user?.id,
      userEmail: typeof user?.email === "string" ? user.email : undefined,
    }));
    try {
      // create, not insertMany: the save hooks stamp `created`.
      await this.model.create(entries);
    } catch (error) {
      this.logger.error("Could not record an admin write in the audit log", { modelName, action, count: entries.length, error });
    }
  }
}
