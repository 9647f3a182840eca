// Run as a child process by wrap-script.test.ts: `node --import tsx wrap-script-fixture.ts <mode>`.
// It prints what happened, one line each, so the parent can check the order and the exit code.
import { InMemoryErrorTracker } from "../../../adapters/error-tracker/in-memory.js";
import { wrapScript } from "../wrap-script.js";

const mode = process.argv[2];
const tracker = new InMemoryErrorTracker();
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const originalFlush = tracker.flush.bind(tracker);
tracker.flush = async () => {
  for (const { context } of tracker.exceptions) console.log(`reported ${context.jobId}`);
  return originalFlush();
};

await wrapScript(
  async () => {
    console.log("running");
    if (mode === "fail") throw new Error("script failed on purpose");
    if (mode === "hang") setInterval(() => undefined, 1000); // an open handle must not keep the process alive
  },
  {
    name: "fixture-job",
    logger: quiet,
    errorTracker: tracker,
    closeDatabase: async () => {
      console.log("database closed");
    },
  },
);
console.log("never printed: wrapScript exits");
