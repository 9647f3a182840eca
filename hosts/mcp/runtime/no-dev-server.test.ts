import test from "ava";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "../../../test/support/temp-dir.js";
import { DEV_SERVER_FILE } from "./index.js";
import { runtimeClient } from "./test-support/mcp-runtime-client.js";

// A project where nothing runs: every tool answers a tool error naming what to start or set,
// never a crash, an empty success or a protocol error.
const expectations: Array<[string, Record<string, unknown>, RegExp]> = [
  ["application_info", {}, /^MCP_RUNTIME_NO_DEV_SERVER: .*npm start/],
  ["database_schema", {}, /^MCP_RUNTIME_NO_DATABASE: .*DB_URI/],
  ["database_query", { collection: "todos" }, /^MCP_RUNTIME_NO_DATABASE/],
  ["read_logs", {}, /^MCP_RUNTIME_NO_LOG_FILE: .*setupLogging/],
  ["last_error", {}, /^MCP_RUNTIME_NO_LOG_FILE/],
  ["get_rtk_state", {}, /^MCP_RUNTIME_NO_DEV_SERVER/],
  ["navigate", { path: "/" }, /^MCP_RUNTIME_NO_DEV_SERVER/],
];

test("without a running development server each tool says what to start", async (t) => {
  const call = await runtimeClient(t, tempDir(t, "svc-mcp-idle-"), { NODE_ENV: "development" });
  for (const [tool, args, expected] of expectations) {
    const answer = await call(tool, args);
    t.true(answer.isError, tool);
    t.regex(answer.text, expected, tool);
  }
});

test("an announcement left by a dead process counts as no server", async (t) => {
  const projectDir = tempDir(t, "svc-mcp-stale-");
  // A pid that surely exited: a finished child's.
  const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
  mkdirSync(path.join(projectDir, ".svc"));
  writeFileSync(
    path.join(projectDir, DEV_SERVER_FILE),
    JSON.stringify({ pid: dead, url: "http://127.0.0.1:9", startedAt: "", nodeEnv: "development", database: { uri: "mongodb://127.0.0.1:9/", name: "x" } }),
  );
  const call = await runtimeClient(t, projectDir, { NODE_ENV: "development" });
  t.regex((await call("application_info", {})).text, /^MCP_RUNTIME_NO_DEV_SERVER/);
  t.regex((await call("database_schema", {})).text, /^MCP_RUNTIME_NO_DATABASE/);
});

test("DB_URI wins over the dev server, and an unreachable database is a tool error", async (t) => {
  const call = await runtimeClient(t, tempDir(t, "svc-mcp-uri-"), { NODE_ENV: "development", DB_URI: "mongodb://app:s3cret@127.0.0.1:9/app?serverSelectionTimeoutMS=500" });
  const answer = await call("database_schema", {});
  t.true(answer.isError);
  t.regex(answer.text, /^MCP_RUNTIME_DATABASE_UNREACHABLE: .*app:\*\*\*\*@127\.0\.0\.1:9/);
  t.false(answer.text.includes("s3cret"), "the password is masked");
});

test("SVC_LOG_DIR points read_logs at another directory", async (t) => {
  const projectDir = tempDir(t, "svc-mcp-logs-");
  mkdirSync(path.join(projectDir, "var"));
  const lines = [
    { level: "info", message: "started", timestamp: "2026-01-01T00:00:00.000Z" },
    { level: "warn", message: "slow request", timestamp: "2026-01-01T00:00:01.000Z" },
    { level: "debug", message: "details", timestamp: "2026-01-01T00:00:02.000Z" },
  ];
  writeFileSync(path.join(projectDir, "var", "combined.log"), `${lines.map((line) => JSON.stringify(line)).join("\n")}\nnot json at all\n`);
  writeFileSync(path.join(projectDir, "var", "error.log"), "");
  const call = await runtimeClient(t, projectDir, { NODE_ENV: "development", SVC_LOG_DIR: "var" });
  const all = (await call("read_logs", {})).json<{ file: string; entries: Array<{ message: string }> }>();
  t.is(all.file, path.join(projectDir, "var", "combined.log"));
  t.deepEqual(all.entries.map((entry) => entry.message), ["started", "slow request", "details", "not json at all"]);
  const warnings = (await call("read_logs", { level: "warn" })).json<{ entries: Array<{ message: string }> }>();
  t.deepEqual(warnings.entries.map((entry) => entry.message), ["slow request"]);
  const lastTwo = (await call("read_logs", { lines: 2 })).json<{ entries: Array<{ message: string }> }>();
  t.deepEqual(lastTwo.entries.map((entry) => entry.message), ["details", "not json at all"]);
  const none = await call("last_error", {});
  t.false(none.isError);
  t.is(none.text, `No error logged in ${path.join(projectDir, "var", "error.log")}.`);
});
