// The demo's user model: the auth plugin's schema plugins plus a display name.
import mongoose, { Schema } from "mongoose";
import { baseUserPlugin, emailVerificationPlugin, githubUserPlugin, isDisabledPlugin } from "../../index.js";

const userSchema = new Schema(
  {
    name: { type: String, trim: true, maxlength: 100, description: "Display name" },
    roles: { type: [String], default: [], description: "Admin roles (see examples/demo/admin.ts)" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
userSchema.plugin(baseUserPlugin);
userSchema.plugin(isDisabledPlugin);
userSchema.plugin(githubUserPlugin);
userSchema.plugin(emailVerificationPlugin);

export const User = mongoose.models.User ?? mongoose.model("User", userSchema);
