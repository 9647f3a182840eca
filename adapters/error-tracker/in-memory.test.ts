import test from "ava";
import { InMemoryErrorTracker } from "./in-memory.js";
import { errorTrackerConformance } from "../conformance/error-tracker.js";

errorTrackerConformance(test, "in-memory", () => {
  const tracker = new InMemoryErrorTracker();
  return {
    tracker,
    observed: async () =>
      tracker.exceptions.map(({ error, context }) => ({
        message: error instanceof Error ? error.message : String(error),
        requestId: context.requestId,
        appVersion: context.appVersion,
        userId: context.userId,
      })),
  };
});
