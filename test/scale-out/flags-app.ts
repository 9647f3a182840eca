// The app of the feature-flag scale-out tests: auth, and feature flags with live updates,
// listening on a free port. The test process runs one; test/scale-out/flags-second-process.ts
// runs another on the same database.
import { authTestApp } from "../support/auth-test-app.js";
import { featureFlagsPlugin, type FeatureFlagsOptions } from "../../plugins/feature-flags/index.js";

export async function flagsApp(
  t: { teardown: (fn: () => Promise<void> | void) => void },
  options: { database?: { uri: string; dbName: string }; flags?: FeatureFlagsOptions; env?: Record<string, string> } = {},
) {
  const built = await authTestApp(
    t,
    {},
    options.env ?? {},
    (app) => app.register(featureFlagsPlugin({ openFeatureDomain: "scale-out-flags", liveUpdates: true, ...options.flags })),
    { port: 0, host: "127.0.0.1", ...(options.database ? { database: options.database } : {}) },
  );
  const running = await built.app.start();
  return { ...built, url: running.url, socketUrl: running.socketUrl! };
}
