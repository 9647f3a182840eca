import type { Schema } from "mongoose";
import { GITHUB_USER_FIELDS } from "../../../contracts/user-fields.js";

/** The fields `githubUserPlugin` adds, as the auth plugin reads and writes them. */
export const GITHUB_FIELDS = GITHUB_USER_FIELDS;

/**
 * Social-login fields for GitHub: `githubId` (GitHub's numeric user id as a string; unique when
 * set, indexed), `githubUsername`, `githubProfileUrl`, `githubAvatarUrl`. Required on the user
 * model when the auth plugin is given `githubAuth`.
 *
 * @example
 * userSchema.plugin(baseUserPlugin);
 * userSchema.plugin(githubUserPlugin);
 */
export function githubUserPlugin(schema: Schema): void {
  schema.add({
    githubId: { type: String, description: "GitHub user id of the linked GitHub account" },
    githubUsername: { type: String, description: "GitHub login of the linked account" },
    githubProfileUrl: { type: String, description: "URL of the linked GitHub profile" },
    githubAvatarUrl: { type: String, description: "Avatar image URL of the linked GitHub account" },
  });
  schema.index({ githubId: 1 }, { unique: true, partialFilterExpression: { githubId: { $type: "string" } } });
}
