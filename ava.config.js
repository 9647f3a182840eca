// Tests live beside the code they test; test/ holds cross-cutting ones. Each file runs in its own
// process with its own in-memory database (see hosts/testing.ts), so files never share state.
export default {
  files: ["**/*.test.ts", "!node_modules/**", "!dist/**", "!.scratch/**"],
  extensions: { ts: "module" },
  nodeArguments: ["--import=tsx"],
  workerThreads: false,
  // Inactivity: no test result for this long fails the run (the demo fuzz groups take minutes each on 2 cores).
  timeout: "6m",
  environmentVariables: { NODE_ENV: "test" },
};
