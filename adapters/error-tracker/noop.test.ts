import { createNoopErrorTracker } from "./noop.js";
import { errorTrackerConformance } from "./test-support/error-tracker-conformance.js";

errorTrackerConformance("noop", () => ({ tracker: createNoopErrorTracker() }));
