import test from "ava";
import { createNoopErrorTracker } from "./noop.js";
import { errorTrackerConformance } from "../conformance/error-tracker.js";

errorTrackerConformance(test, "noop", () => ({ tracker: createNoopErrorTracker() }));
