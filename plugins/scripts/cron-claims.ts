import { hostname } from "node:os";
import mongoose, { Schema, type Model } from "mongoose";
import { isDuplicateKeyError } from "../../contracts/database.js";

/** One claimed run of an exclusive cron job: which process runs the tick due at `scheduledFor`. */
export interface CronRunFields {
  /** `<job>@<scheduledFor, ISO>`: unique, so only one process's claim is stored. */
  _id: string;
  job: string;
  scheduledFor: Date;
  claimedAt: Date;
  /** `<host>:<pid>` of the process that runs it. */
  claimedBy: string;
}

const schema = new Schema<CronRunFields>(
  {
    _id: { type: String, description: "The job's name and the run's scheduled time" },
    job: { type: String, required: true, description: "The cron job's name" },
    scheduledFor: { type: Date, required: true, description: "When the run was due" },
    claimedAt: { type: Date, required: true, description: "When a process claimed it" },
    claimedBy: { type: String, required: true, description: "The claiming process, host:pid" },
  },
  { collection: "svc_cron_runs", strict: "throw", versionKey: false, toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
// Long past any run's schedule, and the collection stays small.
schema.index({ claimedAt: 1 }, { expireAfterSeconds: 30 * 24 * 60 * 60 });

/**
 * The `SvcCronRun` model (collection `svc_cron_runs`), on mongoose's default connection: the
 * claims of exclusive cron jobs, kept 30 days.
 *
 * @example
 * const runs = await cronRunModel().find({ job: "daily-digest" }).sort({ scheduledFor: -1 }).limit(7);
 */
export function cronRunModel(): Model<CronRunFields> {
  return (mongoose.models.SvcCronRun as Model<CronRunFields> | undefined) ?? mongoose.model<CronRunFields>("SvcCronRun", schema);
}

/**
 * Claims the run of `job` due at `scheduledFor` for this process: true for the first process to
 * ask (it runs the job), false for every other (the unique `_id` refused its claim). Throws when
 * the database cannot answer.
 *
 * @example
 * if (await claimCronRun("daily-digest", dueAt)) await sendDigests();
 */
export async function claimCronRun(job: string, scheduledFor: Date): Promise<boolean> {
  try {
    await cronRunModel().create({ _id: `${job}@${scheduledFor.toISOString()}`, job, scheduledFor, claimedAt: new Date(), claimedBy: `${hostname()}:${process.pid}` });
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}
