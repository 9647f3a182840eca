// Feature flags for the demo: the plugin with a segment, live updates over the app's socket
// server, and two example flags created on first start.
import type { SvcPlugin } from "../../index.js";
import { featureFlagModel, featureFlagsPlugin, type FeatureFlagDocument } from "../../plugins/feature-flags/index.js";

/**
 * Signed-in socket.io clients hear `featureFlagsChanged` when a flag changes. A new instance per
 * app: the plugin keeps its cache and provider per app.
 */
export function demoFeatureFlags(): SvcPlugin {
  return featureFlagsPlugin({
    segments: { admins: (user) => user.admin === true },
    liveUpdates: true,
  });
}

/** Creates the two example flags if they do not exist yet. */
export const seedFlags: SvcPlugin = {
  name: "demo-flag-seed",
  dependsOn: ["feature-flags"],
  async start(ctx) {
    const Flag = featureFlagModel();
    const examples: Array<Partial<FeatureFlagDocument>> = [
      {
        key: "new-todo-editor",
        name: "New todo editor",
        description: "The redesigned editor: on for admins, and for half of everyone else",
        type: "boolean",
        enabled: true,
        rolloutPercentage: 50,
        rules: [{ segment: "admins", enabled: true }],
      },
      {
        key: "todo-list-theme",
        name: "Todo list theme",
        description: "Which theme the todo list uses",
        type: "variant",
        enabled: true,
        variants: [{ key: "light", weight: 50 }, { key: "dark", weight: 50 }],
      },
    ];
    for (const example of examples) {
      if (await Flag.exists({ key: example.key })) continue;
      await Flag.create(example);
      ctx.logger.info(`Demo feature flag created: ${example.key}`);
    }
  },
};
