// Tests live beside the code they test; test/ holds cross-cutting ones. Each file runs in its own
// process with its own in-memory database (see hosts/testing.ts), so files never share state.
export default {
  files: ["**/*.test.ts", "!node_modules/**", "!dist/**"],
  extensions: { ts: "module" },
  nodeArguments: ["--import=tsx"],
  workerThreads: false,
  timeout: "2m",
  environmentVariables: { NODE_ENV: "test" },
};
