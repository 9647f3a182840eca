/**
 * The benchmarks' todo: the shape a product team starts with (a required title, a flag, a bounded
 * number, an indexed owner), described and strict, with svc's default schema plugins.
 *
 * @example
 * const Todo = benchTodoModel("BenchTodo");
 */
import mongoose from "mongoose";
import { defaultPlugins } from "../../plugins/rest/schema/default-plugins.js";

export interface BenchTodo {
  title: string;
  done?: boolean;
  priority?: number;
  ownerId?: mongoose.Types.ObjectId;
}

/** The model under `name`, compiled on first use (each benchmark uses its own name and collection). */
export function benchTodoModel(name: string): mongoose.Model<BenchTodo> {
  const existing = mongoose.models[name] as mongoose.Model<BenchTodo> | undefined;
  if (existing) return existing;
  const schema = new mongoose.Schema<BenchTodo>(
    {
      title: { type: String, required: true, maxlength: 200, description: "What to do" },
      done: { type: Boolean, default: false, description: "Whether it is done" },
      priority: { type: Number, min: 1, max: 5, description: "1 (low) to 5 (urgent)" },
      ownerId: { type: mongoose.Schema.Types.ObjectId, index: true, description: "Owner" },
    },
    { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
  );
  schema.plugin(defaultPlugins);
  return mongoose.model<BenchTodo>(name, schema);
}
